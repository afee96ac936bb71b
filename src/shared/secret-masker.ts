import { INSPECTOR_CREDENTIAL_TEXT, maskInspectorCredentials } from './inspector-session.js';
import { mayHideText, withoutHiddenCharacters } from './invisible-characters.js';
import { mayHoldJsonEscapes, withoutJsonEscapes } from './json-escapes.js';
import { isPlainJson } from './plain-json.js';
import { maskCutTail } from './cut-tail.js';
import { mapStrings } from './map-strings.js';
import { secretSpellings } from './secret-spellings.js';
import { applyAll, redactVisitorInBody, visitorReplacements, type Replacement } from './visitor-redaction.js';

export { REDACTED } from './visitor-redaction.js';

/** What the masker needs to know of a call record (src/median's CallRecord fits). */
interface MaskableRecord {
  request?: { body?: unknown; truncated?: boolean } | undefined;
  response?: { body?: unknown; truncated?: boolean } | null | undefined;
}


/**
 * Masks secrets in call records before they reach the disk or a screen
 * (SPEC §2.2 "Secrets never reach the disk or the screen").
 *
 * - The credential of every `authorization` / `proxy-authorization` header,
 *   whatever it is: `Bearer median_key_****abcd`.
 * - Every occurrence of a given secret value in any string of the record
 *   (headers, bodies, verdict text, fields added later), in every spelling
 *   `secretSpellings` knows (JSON-escaped, URL-encoded, base64, hex cases),
 *   and in every property name (a header's name is the sender's text too).
 *   The walk keeps its own stack: no depth or width of a record overflows it.
 *   Where spellings of several secrets overlap (a secret inside another, two
 *   that touch), the whole stretch they cover is masked as one.
 * - The browser inspector's session (its header, the cookie earlier versions
 *   set), should a request through the proxy carry one.
 * - All of that also where controls or invisible characters split it (raw,
 *   or as the `\u200b` text the output sanitiser writes): masked across them.
 * - Anything shaped like a Median key (`median_key_` + 8 or more letters and
 *   digits), given or not.
 * - With `redactVisitor`: `context.visitor.email` and `.name` in the request
 *   body become `[redacted]`, and those values are masked in every other
 *   string of the record too (a tool that echoes the email, the agent's text).
 *
 * A masked secret keeps a recognisable prefix (`median_key_`) and its last
 * four characters when it is long enough (16+) for that to give nothing away.
 * Secrets shorter than 8 characters are ignored: masking them would shred
 * ordinary text.
 */
export interface SecretMasker {
  /** Masks secrets (and Median-key-shaped strings) in one piece of text. */
  mask(text: string): string;
  /** A masked deep copy of a record; the input is not changed. */
  maskRecord<T extends MaskableRecord>(record: T): T;
  /**
   * The record as one JSON text, masked exactly as `maskRecord` masks it,
   * with the record that text describes: `record` itself (no copy) when
   * nothing in it needed masking, else a masked copy. Serializes once and
   * walks the record only when the text holds something to mask. `ascii`:
   * the text is printable ASCII with no escape of a control or invisible
   * character (nothing for escapeJsonControls to do; a byte per character).
   */
  maskToJson<T extends MaskableRecord>(record: T): { record: T; json: string; ascii: boolean };
}

export interface SecretMaskerOptions {
  redactVisitor?: boolean;
  /** Also mask text shaped like a Median key that is not one of the secrets (default true). */
  maskKeyShapes?: boolean;
}

const KEY_PREFIX = 'median_key_';
const KEY_SHAPE = /median_key_[A-Za-z0-9]{8,}/g;
const MIN_SECRET_LENGTH = 8;
const ALREADY_MASKED = /^(?:median_key_)?\*{4}[^*\s]{0,4}$/;
const AUTH_HEADERS = new Set(['authorization', 'proxy-authorization']);
/** A key maskRecord masks by name (AUTH_HEADERS, any case), as it shows in JSON text. */
const AUTH_KEY_TEXT = /authorization/i;
const SURROGATE = /[\uD800-\uDFFF]/;

/** `median_key_****abcd`, `****abcd`, or `****` for short values. */
export function maskSecretValue(value: string): string {
  if (ALREADY_MASKED.test(value)) return value;
  const tail = value.length >= 16 ? value.slice(-4) : '';
  return value.startsWith(KEY_PREFIX) ? `${KEY_PREFIX}****${tail}` : `****${tail}`;
}

/** `Bearer <token>` → `Bearer median_key_****abcd`; a bare credential is masked whole. */
export function maskAuthorization(value: string): string {
  const match = /^(\s*[A-Za-z][\w.-]*\s+)(\S.*)/s.exec(value);
  if (!match) return value.trim() === '' ? value : maskSecretValue(value.trim());
  // Stryker disable next-line StringLiteral: both groups take part in every match; the defaults only satisfy the types.
  const [, scheme = '', credential = ''] = match;
  return `${scheme}${maskSecretValue(credential.trim())}`;
}

/** One spelling of one secret, and what it is masked as. */
interface SecretForm {
  form: string;
  by: string;
  /** The length of the secret it spells: where spellings overlap, the longest secret names the mask. */
  rank: number;
}

function secretForms(secrets: readonly string[]): SecretForm[] {
  const unique = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))];
  const forms = unique.flatMap((secret) =>
    secretSpellings(secret).map((form) => ({ form, by: maskSecretValue(secret), rank: secret.length })),
  );
  // Stryker disable next-line MethodExpression,ArrowFunction,ArithmeticOperator: maskForms sorts the places it finds, so the order of the forms changes nothing.
  return forms.sort((a, b) => b.form.length - a.form.length);
}

/**
 * Masks every place any spelling occurs. The places are found in the text as
 * given (never in text already masked) and overlapping ones are joined, so a
 * secret inside another, or two secrets that overlap, leave no piece visible.
 */
function maskForms(text: string, forms: readonly SecretForm[]): string {
  return maskSpans(text, formSpans(text, forms));
}

interface Span {
  start: number;
  end: number;
  by: string;
  rank: number;
}

function formSpans(text: string, forms: readonly SecretForm[]): Span[] {
  const spans: Span[] = [];
  for (const { form, by, rank } of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
      spans.push({ start: at, end: at + form.length, by, rank });
    }
  }
  return spans;
}

/**
 * Masks in `text` what shows in `plain`, a reading of it (hidden characters
 * taken out, escapes read): each secret spelling and key shape found in
 * `plain` is masked in `text` from where its first character came from
 * (`from`) to where its last one ended (`to`).
 */
function maskThroughReading(text: string, plain: string, from: (i: number) => number, to: (i: number) => number, forms: readonly SecretForm[], maskKeyShapes: boolean): string {
  const spans = formSpans(plain, forms);
  if (maskKeyShapes) {
    for (const key of plain.matchAll(KEY_SHAPE)) spans.push({ start: key.index, end: key.index + key[0].length, by: maskSecretValue(key[0]), rank: key[0].length });
  }
  return maskSpans(
    text,
    spans.map((span) => ({ ...span, start: from(span.start), end: to(span.end - 1) })),
  );
}

/**
 * Masks what shows only once the controls and invisible characters are taken
 * out (a key split by U+200B, or by `\u200b` text a sanitiser already wrote):
 * each secret is masked from its first character to its last, hidden ones
 * between included.
 */
function maskAcrossHidden(text: string, forms: readonly SecretForm[], maskKeyShapes: boolean): string {
  if (!mayHideText(text)) return text;
  const { plain, at } = withoutHiddenCharacters(text);
  if (plain.length === text.length) return text;
  return maskThroughReading(text, plain, (i) => at[i]!, (i) => at[i]! + 1, forms, maskKeyShapes);
}

/**
 * Masks what shows only once JSON's `\uXXXX` and `\/` escapes are read (a
 * key in a JSON body with some or all of its characters escaped, in either
 * hex case), over every character it was written with.
 */
function maskAcrossEscapes(text: string, forms: readonly SecretForm[], maskKeyShapes: boolean): string {
  if (!mayHoldJsonEscapes(text)) return text;
  const { plain, from, to } = withoutJsonEscapes(text);
  if (plain.length === text.length) return text;
  return maskThroughReading(text, plain, (i) => from[i]!, (i) => to[i]!, forms, maskKeyShapes);
}

function maskSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort(
    (a, b) =>
      a.start - b.start ||
      // Stryker disable next-line ArithmeticOperator: of two places that start together either may come first: the shorter merges into the longer.
      b.end - a.end,
  );
  let out = '';
  let cursor = 0;
  let current = spans[0]!;
  const flush = () => {
    out += text.slice(cursor, current.start) + current.by;
    cursor = current.end;
  };
  // Stryker disable next-line MethodExpression: the first place merged with itself changes nothing.
  for (const span of spans.slice(1)) {
    if (span.start < current.end) {
      current = {
        start: current.start,
        end: Math.max(current.end, span.end),
        by: span.rank > current.rank ? span.by : current.by,
        rank: Math.max(span.rank, current.rank),
      };
      continue;
    }
    flush();
    current = span;
  }
  flush();
  return out + text.slice(cursor);
}

/**
 * What a record's JSON text must contain for maskRecord to change anything:
 * each secret spelling as JSON writes it inside a string (JSON escapes
 * character by character, so a string holding a spelling puts its escaped
 * form in the text), and the key prefix. Null when a spelling holds a
 * surrogate (JSON may escape it differently in context): then always mask.
 */
function textNeedles(fixed: readonly SecretForm[]): string[] | null {
  const needles = new Set<string>([KEY_PREFIX]);
  for (const { form } of fixed) {
    if (SURROGATE.test(form)) return null;
    needles.add(JSON.stringify(form).slice(1, -1));
  }
  // A needle holding another one is found only where that one is: test the shorter.
  const all = [...needles];
  // Stryker disable next-line MethodExpression,ArrowFunction,ConditionalExpression: keeping a needle that holds a shorter one only costs time: the shorter is found wherever it is.
  return all.filter((needle) => !all.some((other) => other !== needle && needle.includes(other)));
}

export function createSecretMasker(secrets: string[], options: SecretMaskerOptions = {}): SecretMasker {
  const fixed = secretForms(secrets);
  const needles = textNeedles(fixed);
  const redactVisitor = options.redactVisitor === true;
  const maskKeyShapes = options.maskKeyShapes !== false;
  const maskWith = (text: string, extra: readonly Replacement[]): string => {
    // Shorter than any secret, spelt or split, and than a key's shape: nothing of ours to mask (most names and values of a wide object).
    if (text.length < MIN_SECRET_LENGTH) return extra.length > 0 ? applyAll(text, extra) : text;
    let out = maskForms(maskAcrossEscapes(maskAcrossHidden(text, fixed, maskKeyShapes), fixed, maskKeyShapes), fixed);
    if (maskKeyShapes && out.includes(KEY_PREFIX)) out = out.replace(KEY_SHAPE, (key) => maskSecretValue(key));
    // Stryker disable next-line ConditionalExpression,EqualityOperator: applyAll with no replacements gives the text back; the check saves the call.
    return extra.length > 0 ? applyAll(out, extra) : out;
  };

  /** Every string and property name of `value` masked; the walk keeps its own stack (mapStrings), so no depth or width of a value overflows it. */
  const walk = (value: unknown, extra: readonly Replacement[]): unknown =>
    mapStrings(
      value,
      (text, key) =>
        // Stryker disable next-line ConditionalExpression: only the record itself (an object) is walked without a key, so no string reaches here without one.
        maskWith(key === undefined ? text : AUTH_HEADERS.has(key.toLowerCase()) ? maskAuthorization(text) : maskInspectorCredentials(key, text, maskSecretValue), extra),
      // A header's name is the sender's text too (`x-median_key_…: 1`).
      { mapKey: (name) => maskWith(name, extra) },
    );

  const maskRecord = <T extends MaskableRecord>(record: T): T => {
    let source = record;
    let extra: Replacement[] = [];
    if (redactVisitor && typeof record.request?.body === 'string') {
      const found = new Set<string>();
      const body = redactVisitorInBody(record.request.body, found);
      source = { ...record, request: { ...record.request, body } };
      extra = visitorReplacements(found);
    }
    const masked = walk(source, extra) as T;
    // A body cut at the recording limit: its end may hold the first part of a secret.
    for (const side of [masked.request, masked.response]) {
      if (side?.truncated === true && typeof side.body === 'string') side.body = maskCutTail(side.body, fixed.map((f) => f.form));
    }
    return masked;
  };

  /** False only when maskRecord would give back the record unchanged (its JSON text is `json`, `plain` when isPlainJson says so). */
  const mayNeedMasking = (record: MaskableRecord, json: string, plain: boolean): boolean => {
    // Escape texts in a string (a JSON body's own `\\u006d`, the octal `\\0342` of `show --curl`) show in the
    // record's JSON text with their backslash escaped: mayHideText does not read them there, maskRecord does.
    if (record.request?.truncated === true || record.response?.truncated === true) return true;
    if (needles === null || (!plain && (mayHideText(json) || json.includes('\\\\u') || json.includes('\\\\/') || json.includes('\\\\0')))) return true;
    // The visitor regex needs a `"visitor"` object in the request body.
    if (redactVisitor && typeof record.request?.body === 'string' && record.request.body.includes('"visitor"')) return true;
    for (const needle of needles) if (json.includes(needle)) return true;
    return AUTH_KEY_TEXT.test(json) || INSPECTOR_CREDENTIAL_TEXT.test(json);
  };

  return {
    mask: (text) => maskWith(text, []),
    maskRecord,
    maskToJson<T extends MaskableRecord>(record: T) {
      const json = JSON.stringify(record);
      const plain = isPlainJson(json);
      if (!mayNeedMasking(record, json, plain)) return { record, json, ascii: plain };
      const masked = maskRecord(record);
      const maskedJson = JSON.stringify(masked);
      return { record: masked, json: maskedJson, ascii: isPlainJson(maskedJson) };
    },
  };
}
