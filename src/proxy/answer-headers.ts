/**
 * The answer's headers as Node's `IncomingMessage#headers` builds them from
 * the raw list (Node 20's `_addHeaderLine`), so a record reads the same
 * whichever HTTP client took the answer: names lower-cased; `set-cookie`
 * always an array; `cookie` joined with `; `; the fields of which only one
 * can make sense (content-type, location, …) keep the first; every other
 * repeated field joined with `, `. A field named `__proto__` is left out,
 * as Node's assignment leaves it out (and no record gets such a key).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Node's list of fields whose repetitions are dropped (the first wins). */
const FIRST_WINS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

type HeaderBag = Record<string, string | string[] | undefined>;

/** Builds the headers object from `[name, value, name, value…]` (names as sent). */
export function answerHeadersOf(rawHeaders: readonly string[]): IncomingHttpHeaders {
  const bag: HeaderBag = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (name === '__proto__') continue;
    const value = rawHeaders[i + 1] as string;
    const had = Object.prototype.hasOwnProperty.call(bag, name) ? bag[name] : undefined;
    if (name === 'set-cookie') {
      if (had === undefined) bag[name] = [value];
      else (had as string[]).push(value);
    } else if (had === undefined) bag[name] = value;
    else if (FIRST_WINS.has(name)) continue;
    else bag[name] = `${had as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return bag as IncomingHttpHeaders;
}
