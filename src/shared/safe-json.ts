/**
 * JSON from the network can nest arbitrarily deep: `JSON.parse` copes, but
 * every recursive reader after it (`JSON.stringify`, a pretty-printer, a
 * tree view, a diff) overflows the stack on, say, 200,000 nested arrays.
 * Readers of a record parse through `parseBoundedJson`, which refuses such
 * text up front, so what they hold is always shallow enough to walk.
 */

/** Deeper than this is not JSON any reader walks (Median's own calls nest a handful of levels). */
export const MAX_JSON_DEPTH = 256;

/** Whether `text`'s arrays and objects nest deeper than `limit`: one pass, no recursion, strings skipped. */
export function isJsonTooDeep(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** `JSON.parse`, but text nested deeper than MAX_JSON_DEPTH throws a SyntaxError, like text that is not JSON. */
export function parseBoundedJson(text: string): unknown {
  if (isJsonTooDeep(text)) throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not read.`);
  return JSON.parse(text) as unknown;
}

/** `JSON.stringify` that never throws: a value it cannot write (too deep, a cycle, a BigInt) gives `fallback`. */
export function stringifySafely(value: unknown, space?: number, fallback = '"(not shown: too deep to write)"'): string {
  try {
    return JSON.stringify(value, null, space) ?? 'null';
  } catch {
    return fallback; // a RangeError (stack) or TypeError (cycle, BigInt): the reader shows this instead of crashing
  }
}
