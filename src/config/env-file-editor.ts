import { dotenvAssignments, parseEnvBytes, type DotenvAssignment } from './dotenv-assignments.js';

/**
 * Sets one variable in a dotenv file, changing no byte outside the values
 * dotenv reads for it. Works on the file's bytes: a value in Latin-1 or any
 * other encoding, or bytes that are not valid UTF-8, stay exactly as they
 * were. Where the assignments are is asked of dotenv's own expression
 * (dotenv-assignments.ts), so the editor agrees with the parser on every
 * input: a line inside another variable's multi-line value (a PEM, JSON, a
 * single-quoted note with `\'` in it) is never mistaken for an assignment,
 * and every assignment of the variable is updated (none is left stale).
 * The result is checked by parsing it: dotenv must read the new value and
 * every other variable exactly as before; where an edit in place would not
 * give that, the variable is appended (the last assignment wins), and where
 * nothing would, it is refused.
 */

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

/**
 * Returns the file's bytes with `name` set to `value` (written as UTF-8);
 * appends the variable when absent. Every other byte is kept.
 */
export function setEnvVariableInBytes(bytes: Uint8Array, name: string, value: string): Buffer {
  return Buffer.from(setInBytes(Buffer.from(bytes), name, value));
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

/** `'`, `"` or `` ` `` when the value as written is wrapped in that quote, else `''` (bare). */
function quoteOf(raw: string): string {
  const quote = raw[0];
  return raw.length >= 2 && (quote === '"' || quote === "'" || quote === '`') && raw.endsWith(quote) ? quote : '';
}

/** Whether dotenv reads `bytes` as `before` with `name` set to `value`: no other variable changed, none added or lost. */
function readsAs(bytes: Uint8Array, before: Record<string, string>, name: string, value: string): boolean {
  const after = parseEnvBytes(bytes);
  if (after[name] !== value) return false;
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  keys.delete(name);
  for (const key of keys) if (after[key] !== before[key]) return false;
  return true;
}

/** Every assignment in `targets` given the new value, in the quotes it had while they hold it. */
function editInPlace(bytes: Buffer, targets: readonly DotenvAssignment[], value: string): Buffer {
  const parts: Buffer[] = [];
  let cursor = 0;
  for (const target of targets) {
    parts.push(bytes.subarray(cursor, target.valueStart), Buffer.from(formatValue(value, quoteOf(target.raw)), 'utf8'));
    cursor = target.valueEnd;
  }
  parts.push(bytes.subarray(cursor));
  return Buffer.concat(parts);
}

/** `name=value` as a new last line, with the file's own line end. */
function appendAssignment(bytes: Buffer, name: string, value: string): Buffer {
  const text = bytes.toString('latin1');
  const eol = lineEndOf(text);
  const needsBreak = text.length > 0 && !/[\r\n]$/.test(text);
  return Buffer.concat([bytes, Buffer.from(`${needsBreak ? eol : ''}${name}=`, 'latin1'), Buffer.from(formatValue(value, ''), 'utf8'), Buffer.from(eol, 'latin1')]);
}

/** `name=value` as a new first line (after a BOM), with the file's own line end. */
function prependAssignment(bytes: Buffer, name: string, value: string): Buffer {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const eol = lineEndOf(bytes.toString('latin1'));
  return Buffer.concat([bytes.subarray(0, bom), Buffer.from(`${name}=`, 'latin1'), Buffer.from(formatValue(value, ''), 'utf8'), Buffer.from(eol, 'latin1'), bytes.subarray(bom)]);
}

function setInBytes(bytes: Buffer, name: string, value: string): Buffer {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`Not a variable name: ${name}`);
  if (/[\r\n]/.test(value)) throw new TypeError('A value written to an env file cannot contain a line break');
  const before = parseEnvBytes(bytes);
  const targets = dotenvAssignments(bytes).filter((a) => a.name === name);
  if (targets.length > 0) {
    const edited = editInPlace(bytes, targets, value);
    if (readsAs(edited, before, name, value)) return edited;
    // Already read as the value (a file this function appended to before): nothing to change.
    if (before[name] === value) return bytes;
  }
  const appended = appendAssignment(bytes, name, value);
  if (readsAs(appended, before, name, value)) return appended;
  // What ends the file would read a new last line as part of itself (`A:` takes the next line as its value): first line then.
  const prepended = prependAssignment(bytes, name, value);
  if (readsAs(prepended, before, name, value)) return prepended;
  throw new TypeError(`dotenv would not read ${name} back from this file if it were set here; set it by hand`);
}
