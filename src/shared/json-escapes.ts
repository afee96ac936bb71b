/**
 * JSON lets any character be written as a `\uXXXX` escape (hex digits in
 * either case) and `/` as `\/`: a key in a JSON body may be spelled with
 * some or all of its characters escaped, in any mix, which no fixed list of
 * spellings covers. `withoutJsonEscapes` gives the text with those escapes
 * read, and for each character of it where it came from, so a secret found
 * there is masked in the text as written (the masker's maskAcrossEscapes).
 */
const ESCAPE = /\\u([0-9a-fA-F]{4})|\\\//g;

/** Whether `text` holds an escape that withoutJsonEscapes would read. */
export function mayHoldJsonEscapes(text: string): boolean {
  return text.includes('\\u') || text.includes('\\/');
}

/** `plain[i]` came from `text.slice(from[i], to[i])`. */
export function withoutJsonEscapes(text: string): { plain: string; from: number[]; to: number[] } {
  let plain = '';
  const from: number[] = [];
  const to: number[] = [];
  let cursor = 0;
  const keep = (end: number) => {
    plain += text.slice(cursor, end);
    for (let i = cursor; i < end; i++) {
      from.push(i);
      to.push(i + 1);
    }
  };
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(text); match !== null; match = ESCAPE.exec(text)) {
    // An escaped backslash before it (`\\u0041`) makes it text, not an escape.
    let backslashes = 0;
    for (let i = match.index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
    if (backslashes % 2 === 1) continue;
    keep(match.index);
    plain += match[1] === undefined ? '/' : String.fromCharCode(Number.parseInt(match[1], 16));
    from.push(match.index);
    to.push(match.index + match[0].length);
    cursor = match.index + match[0].length;
  }
  keep(text.length);
  return { plain, from, to };
}
