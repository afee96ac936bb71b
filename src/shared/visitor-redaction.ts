import { urlEncodedSpelling } from './secret-spellings.js';

/**
 * `--redact-visitor` (SPEC §2.2): the visitor's email and name in a tool
 * call body become `[redacted]`, and the values found there are masked in
 * every other string of the record by the replacements made here.
 */
export const REDACTED = '[redacted]';
/** The visitor object of a tool call body; it holds no nested objects. */
const VISITOR_OBJECT = /("visitor"\s*:\s*\{)([^{}]*)/g;
const VISITOR_FIELD = /("(?:email|name)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

export interface Replacement {
  pattern: RegExp;
  by: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces the visitor's email and name in a request body, keeping every other byte. */
export function redactVisitorInBody(body: string, found: Set<string>): string {
  return body.replace(VISITOR_OBJECT, (_all, open: string, inner: string) => {
    const redacted = inner.replace(VISITOR_FIELD, (_field, key: string, raw: string) => {
      try {
        found.add(JSON.parse(`"${raw}"`) as string);
      } catch {
        found.add(raw); // not valid JSON escapes: mask the text as it stands
      }
      return `${key}"${REDACTED}"`;
    });
    return `${open}${redacted}`;
  });
}

/**
 * Spellings a visitor value may take inside a JSON body, a URL or a form:
 * as is, JSON-escaped (also every non-ASCII character as `\\u` escapes),
 * URL-encoded (spaces also as `+`), and with its blanks collapsed or
 * trimmed. Case is matched apart from these (the patterns ignore it): a
 * route that answers the email lower-cased or the name upper-cased, or
 * title-cases it, still has it masked.
 */
function visitorSpellings(value: string): string[] {
  const bases = new Set([value, value.trim(), value.replace(/\s+/g, ' ').trim()]);
  const forms = new Set<string>();
  for (const base of bases) {
    const json = JSON.stringify(base).slice(1, -1);
    const url = urlEncodedSpelling(base);
    for (const form of [base, json, json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), url, url.replaceAll('%20', '+')]) {
      if (form.length >= 2) forms.add(form);
    }
  }
  return [...forms];
}

/** Masks for visitor values seen in the body: emails anywhere, names as whole words; any case. */
export function visitorReplacements(values: Set<string>): Replacement[] {
  const result: Replacement[] = [];
  for (const value of values) {
    if (value.trim().length < 2) continue;
    // Stryker disable next-line ConditionalExpression: masking "[redacted]" by "[redacted]" changes nothing; the check saves the work.
    if (value === REDACTED) continue;
    for (const form of visitorSpellings(value)) {
      const body = escapeRegExp(form);
      const pattern = value.includes('@') ? body : `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`;
      // `i` with `u`: Unicode case folding, so "ZOË" matches "Zoë".
      result.push({ pattern: new RegExp(pattern, 'giu'), by: REDACTED });
    }
  }
  return result;
}

export function applyAll(text: string, replacements: readonly Replacement[]): string {
  let out = text;
  for (const { pattern, by } of replacements) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, by);
  }
  return out;
}
