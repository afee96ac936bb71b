/**
 * Sets one variable in a dotenv file, changing no byte outside the lines that
 * assign it. Works on the file's bytes (`setEnvVariableInBytes`): a value in
 * Latin-1 or any other encoding, or bytes that are not valid UTF-8, stay
 * exactly as they were. Inside, the bytes are held as a "binary string" (one
 * character per byte, Latin-1), so the line logic below never decodes them.
 * Handles `\n`, `\r\n` and `\r` line ends (dotenv reads all three), a
 * missing final newline, a BOM,
 * `export` prefixes, quotes, trailing comments, duplicates (every assignment
 * is updated, so none is left stale) and multi-line quoted values of other
 * variables (a line inside them is never mistaken for an assignment).
 */

interface Line {
  /** Start offset of the line's content in the text. */
  start: number;
  /** End offset of the content (before the line ending). */
  end: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  const breaks = /\r\n|\r|\n/g;
  for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
    lines.push({ start, end: match.index });
    start = match.index + match[0].length;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty last line after a final line end holds no assignment.
  if (start < text.length) lines.push({ start, end: text.length });
  return lines;
}

/** The length of a byte order mark at the start: as text (U+FEFF) or as UTF-8 bytes in a binary string. */
function bomLength(text: string): number {
  // Stryker disable next-line ConditionalExpression,MethodExpression: ASSIGNMENT's \s also matches U+FEFF, and binary strings never hold it; kept so the BOM is named, not relied on by accident.
  if (text.startsWith('\uFEFF')) return 1;
  return text.startsWith('\u00EF\u00BB\u00BF') ? 3 : 0;
}

/** `(.*)` takes the rest of the line: a line holds no \n or \r (U+2028 in decoded text is part of the value, as dotenv reads it). */
const ASSIGNMENT = /^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.-]*)(\s*=\s*)(.*)/;

/** Where a quoted value that opens on this line but does not close on it ends. */
function opensMultiline(value: string): string | undefined {
  const quote = value[0];
  if (quote !== '"' && quote !== "'" && quote !== '`') return undefined;
  // Closed on the same line (an unescaped closing quote after the first char)?
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which matches no quote.
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
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which matches no quote.
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
    // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which matches no quote.
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

/**
 * Whether dotenv reads `value` back exactly when it is written between
 * `quote`s (`''`: bare). dotenv has no escapes but `\n`/`\r` inside double
 * quotes (which it turns into line breaks), so a value can only be quoted by
 * a quote it does not hold; bare, it is cut at `#` and trimmed.
 */
function holds(quote: string, value: string): boolean {
  if (quote === '') return !/[ \t\f\v#"'`\\]/.test(value);
  if (quote === '"') return !/"|\\[nr]/.test(value);
  return !value.includes(quote);
}

/** `value` written so dotenv reads it back: in the quotes it had when they hold it, else the first that does. */
function formatValue(value: string, quote: string): string {
  const chosen = [quote, '"', "'", '`'].find((q) => holds(q, value));
  if (chosen === undefined) throw new TypeError('A value holding all three quote characters cannot be written to an env file');
  return `${chosen}${value}${chosen}`;
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
    if (index === 0) content = content.slice(bomLength(content));
    if (openQuote !== undefined) {
      if (closesMultiline(content, openQuote)) openQuote = undefined;
      return;
    }
    const match = ASSIGNMENT.exec(content);
    if (!match) return;
    // Stryker disable next-line StringLiteral: both groups take part in every match; the defaults only satisfy the types.
    const value = match[4] ?? '';
    // Stryker disable next-line StringLiteral: as above.
    found.push({ name: match[2] ?? '', raw: value, line: index });
    openQuote = opensMultiline(value);
  });
  return found;
}

/**
 * Returns the file's bytes with `name` set to `value` (written as UTF-8);
 * appends the variable when absent. Every other byte is kept.
 */
export function setEnvVariableInBytes(bytes: Uint8Array, name: string, value: string): Buffer {
  const binary = Buffer.from(bytes).toString('latin1');
  // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as its default, utf8.
  const next = setInBinary(binary, name, Buffer.from(value, 'utf8').toString('latin1'));
  return Buffer.from(next, 'latin1');
}

/** `setEnvVariableInBytes` for text: the text's UTF-8 bytes, edited, read back. */
export function setEnvVariable(text: string, name: string, value: string): string {
  // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as its default, utf8.
  return setEnvVariableInBytes(Buffer.from(text, 'utf8'), name, value).toString('utf8');
}

/** The line end a line appended to `text` gets: the file's own (the first one it uses). */
function lineEndOf(text: string): string {
  const first = /\r\n|\r|\n/.exec(text);
  return first ? first[0] : '\n';
}

function setInBinary(text: string, name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`Not a variable name: ${name}`);
  if (/[\r\n]/.test(value)) throw new TypeError('A value written to an env file cannot contain a line break');
  const lines = splitLines(text);
  const targets = new Set(findAssignments(text).filter((a) => a.name === name).map((a) => a.line));

  if (targets.size === 0) {
    const eol = lineEndOf(text);
    const needsBreak = text.length > 0 && !/[\r\n]$/.test(text);
    return `${text}${needsBreak ? eol : ''}${name}=${formatValue(value, '')}${eol}`;
  }

  let out = '';
  let cursor = 0;
  lines.forEach((line, index) => {
    if (!targets.has(index)) return;
    const contentStart = line.start + (index === 0 ? bomLength(text) : 0);
    const content = text.slice(contentStart, line.end);
    const match = ASSIGNMENT.exec(content);
    // Stryker disable next-line ConditionalExpression: targets are lines findAssignments matched, so this always matches; the check narrows the type.
    if (!match) return;
    // Stryker disable next-line StringLiteral: every group takes part in every match; the defaults only satisfy the types.
    const [, prefix = '', key = '', equals = '', rawValue = ''] = match;
    const { quote, rest } = splitValue(rawValue);
    out += text.slice(cursor, contentStart) + prefix + key + equals + formatValue(value, quote) + rest;
    cursor = line.end;
  });
  return out + text.slice(cursor);
}
