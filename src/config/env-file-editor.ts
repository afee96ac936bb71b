/**
 * Sets one variable in the text of a dotenv file, changing no byte outside
 * the lines that assign it. Handles CRLF, a missing final newline, a BOM,
 * `export` prefixes, quotes, trailing comments, duplicates (every assignment
 * is updated, so none is left stale) and multi-line quoted values of other
 * variables (a line inside them is never mistaken for an assignment).
 */

interface Line {
  /** Start offset of the line's content in the text. */
  start: number;
  /** End offset of the content (before the line ending). */
  end: number;
  /** The line ending that follows: '\n', '\r\n', or '' for the last line. */
  eol: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) {
      if (start < text.length) lines.push({ start, end: text.length, eol: '' });
      break;
    }
    const crlf = nl > start && text[nl - 1] === '\r';
    lines.push({ start, end: crlf ? nl - 1 : nl, eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return lines;
}

const ASSIGNMENT = /^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.-]*)(\s*=\s*)(.*)$/;

/** Where a quoted value that opens on this line but does not close on it ends. */
function opensMultiline(value: string): string | undefined {
  const quote = value[0];
  if (quote !== '"' && quote !== "'" && quote !== '`') return undefined;
  // Closed on the same line (an unescaped closing quote after the first char)?
  for (let i = 1; i < value.length; i++) {
    if (value[i] === '\\' && quote === '"') {
      i++;
      continue;
    }
    if (value[i] === quote) return undefined;
  }
  return quote;
}

function closesMultiline(content: string, quote: string): boolean {
  for (let i = 0; i < content.length; i++) {
    if (content[i] === '\\' && quote === '"') {
      i++;
      continue;
    }
    if (content[i] === quote) return true;
  }
  return false;
}

/** The part after the value that must be kept: ` # comment` on unquoted values. */
function splitValue(value: string): { quote: string; rest: string } {
  const quote = value[0];
  if (quote === '"' || quote === "'" || quote === '`') {
    for (let i = 1; i < value.length; i++) {
      if (value[i] === '\\' && quote === '"') {
        i++;
        continue;
      }
      if (value[i] === quote) return { quote, rest: value.slice(i + 1) };
    }
    return { quote, rest: '' };
  }
  const comment = value.search(/\s#/);
  return { quote: '', rest: comment === -1 ? '' : value.slice(comment) };
}

function formatValue(value: string, quote: string): string {
  if (quote === '' && /[\s#"'`\\]/.test(value)) quote = '"';
  if (quote === '"') return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  if (quote !== '') return `${quote}${value}${quote}`;
  return value;
}

export interface EnvAssignment {
  name: string;
  /** The raw value text after `=` (quotes and comment included). */
  raw: string;
  line: number;
}

/** Finds every top-level assignment (skipping the insides of multi-line values). */
export function findAssignments(text: string): EnvAssignment[] {
  const found: EnvAssignment[] = [];
  const lines = splitLines(text);
  let openQuote: string | undefined;
  lines.forEach((line, index) => {
    let content = text.slice(line.start, line.end);
    if (index === 0 && content.startsWith('\uFEFF')) content = content.slice(1);
    if (openQuote !== undefined) {
      if (closesMultiline(content, openQuote)) openQuote = undefined;
      return;
    }
    const match = ASSIGNMENT.exec(content);
    if (!match) return;
    const value = match[4] ?? '';
    found.push({ name: match[2] ?? '', raw: value, line: index });
    openQuote = opensMultiline(value);
  });
  return found;
}

/** Returns the text with `name` set to `value`; appends the variable when absent. */
export function setEnvVariable(text: string, name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`Not a variable name: ${name}`);
  if (/[\r\n]/.test(value)) throw new TypeError('A value written to an env file cannot contain a line break');
  const lines = splitLines(text);
  const targets = new Set(findAssignments(text).filter((a) => a.name === name).map((a) => a.line));

  if (targets.size === 0) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const needsBreak = text.length > 0 && !text.endsWith('\n');
    return `${text}${needsBreak ? eol : ''}${name}=${formatValue(value, '')}${eol}`;
  }

  let out = '';
  let cursor = 0;
  lines.forEach((line, index) => {
    if (!targets.has(index)) return;
    let contentStart = line.start;
    if (index === 0 && text.startsWith('\uFEFF')) contentStart += 1;
    const content = text.slice(contentStart, line.end);
    const match = ASSIGNMENT.exec(content);
    if (!match) return;
    const [, prefix = '', key = '', equals = '', rawValue = ''] = match;
    const { quote, rest } = splitValue(rawValue);
    out += text.slice(cursor, contentStart) + prefix + key + equals + formatValue(value, quote) + rest;
    cursor = line.end;
  });
  return out + text.slice(cursor);
}
