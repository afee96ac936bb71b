import { parse } from 'dotenv';

/**
 * Where the dotenv parser (the `dotenv` package median-dev reads env files
 * with, and Next.js's @next/env with it) finds each assignment in a file's
 * bytes, so the editor changes exactly what dotenv will read, on every input:
 * a multi-line single-quoted value with `\'` inside, `KEY: value` lines, a
 * value that starts on the next line, bytes that are not UTF-8.
 *
 * The file is read the way median-dev's reader gives it to dotenv (UTF-8,
 * invalid bytes as U+FFFD, one leading BOM dropped), line ends normalised as
 * dotenv does (`\r\n` and a lone `\r` become `\n`), and scanned with dotenv's
 * own expression; every character keeps the byte range it came from.
 */

/**
 * dotenv 16's `LINE` (lib/main.js), unchanged but for one capture added
 * around the separator (group 2), which does not change what it matches,
 * and the `d` flag for the groups' positions.
 */
const DOTENV_LINE =
  /(?:^|^)\s*(?:export\s+)?([\w.-]+)((?:\s*=\s*?|:\s+?))(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/dgm;

export interface DotenvAssignment {
  name: string;
  /** Byte range of the value as written (quotes included, surrounding blanks not), or an empty range where it would go. */
  valueStart: number;
  valueEnd: number;
  /** The value as written (a binary string of its bytes). */
  raw: string;
}

/** The bytes decoded as UTF-8 the WHATWG way (each bad sequence one U+FFFD), with each UTF-16 unit's first byte. */
function decodeWithOffsets(bytes: Uint8Array): { text: string; starts: number[] } {
  let text = '';
  const starts: number[] = [];
  const emit = (codePoint: number, at: number) => {
    const char = String.fromCodePoint(codePoint);
    text += char;
    for (let unit = 0; unit < char.length; unit++) starts.push(at);
  };
  let needed = 0;
  let seen = 0;
  let codePoint = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let sequenceStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (needed === 0) {
      sequenceStart = i;
      if (byte <= 0x7f) emit(byte, i);
      else if (byte >= 0xc2 && byte <= 0xdf) [needed, codePoint] = [1, byte & 0x1f];
      else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f;
        [needed, codePoint] = [2, byte & 0x0f];
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f;
        [needed, codePoint] = [3, byte & 0x07];
      } else emit(0xfffd, i);
      continue;
    }
    if (byte < lower || byte > upper) {
      [needed, seen, codePoint, lower, upper] = [0, 0, 0, 0x80, 0xbf];
      emit(0xfffd, sequenceStart);
      i--; // this byte starts over
      continue;
    }
    [lower, upper] = [0x80, 0xbf];
    codePoint = (codePoint << 6) | (byte & 0x3f);
    seen++;
    if (seen === needed) {
      emit(codePoint, sequenceStart);
      [needed, seen, codePoint] = [0, 0, 0];
    }
  }
  if (needed !== 0) emit(0xfffd, sequenceStart);
  return { text, starts };
}

/** The text dotenv scans, and for each of its characters the byte it starts at (plus one past the end). */
function scannedText(bytes: Uint8Array): { text: string; byteAt: number[] } {
  const decoded = decodeWithOffsets(bytes);
  let text = '';
  const byteAt: number[] = [];
  // One leading BOM is dropped before parsing (env-file-reader.ts).
  let i = decoded.text.startsWith('\uFEFF') ? 1 : 0;
  for (; i < decoded.text.length; i++) {
    const char = decoded.text[i]!;
    byteAt.push(decoded.starts[i]!);
    if (char === '\r') {
      text += '\n';
      if (decoded.text[i + 1] === '\n') i++;
    } else text += char;
  }
  byteAt.push(bytes.length);
  return { text, byteAt };
}

/** Every assignment dotenv finds, in file order (a name may come more than once: the last one wins). */
export function dotenvAssignments(bytes: Uint8Array): DotenvAssignment[] {
  const { text, byteAt } = scannedText(bytes);
  const binary = Buffer.from(bytes).toString('latin1');
  const found: DotenvAssignment[] = [];
  DOTENV_LINE.lastIndex = 0;
  for (let match = DOTENV_LINE.exec(text); match !== null; match = DOTENV_LINE.exec(text)) {
    // An empty match would loop for ever; dotenv's own loop has the same expression, so it never matches empty.
    if (match[0] === '') {
      DOTENV_LINE.lastIndex++;
      continue;
    }
    const indices = match.indices!;
    let start: number;
    let end: number;
    const value = match[3];
    if (value === undefined) {
      start = end = indices[2]![1];
    } else {
      // dotenv trims the value: the blanks around it are kept as they are.
      const [from, to] = indices[3]!;
      start = from + (value.length - value.trimStart().length);
      end = Math.max(start, to - (value.length - value.trimEnd().length));
    }
    const valueStart = byteAt[start]!;
    const valueEnd = byteAt[end]!;
    found.push({ name: match[1]!, valueStart, valueEnd, raw: binary.slice(valueStart, valueEnd) });
  }
  return found;
}

/** What dotenv reads from these bytes, read the way env-file-reader.ts reads them. */
export function parseEnvBytes(bytes: Uint8Array): Record<string, string> {
  return parse(Buffer.from(bytes).toString('utf8').replace(/^\uFEFF/, ''));
}
