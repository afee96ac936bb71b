import { SIGNATURE_HEADER, SIGNATURE_TOLERANCE_MS, signBody } from '../median/signature.js';
import { throwIfUnsignedOriginal } from '../median/unsigned-original.js';
import type { CallRecord } from '../median/call-record.js';
import { UserError } from '../shared/errors.js';
import { HOP_BY_HOP_HEADERS } from '../shared/hop-by-hop-headers.js';
import { TERMINAL_UNSAFE_CHAR } from '../shared/output-sanitiser.js';

export interface CurlOptions {
  /** The full URL to send to (the route: target origin + route path). */
  url: string;
  /** The tool signing secret. */
  secret: Uint8Array;
  /** Clock for the fresh timestamp (ms). */
  now?: number;
  /** The original was not validly signed, and the user said to re-sign it anyway (`--allow-unsigned-original`). */
  allowUnsignedOriginal?: boolean;
}

/**
 * Headers left out: hop-by-hop ones, those curl sets itself (`host`,
 * `content-length`, `expect`), `authorization` (masked on disk anyway),
 * `accept-encoding` (so the answer prints as text) and the old signature.
 */
const LEFT_OUT = new Set([
  ...HOP_BY_HOP_HEADERS,
  'trailers',
  'transfer-encoding',
  'content-length',
  'authorization',
  'host',
  'expect',
  'accept-encoding',
  SIGNATURE_HEADER,
]);

/** Characters a terminal would act on, or that hide text, if printed raw (src/shared/output-sanitiser.ts). */
const TERMINAL_CONTROL = TERMINAL_UNSAFE_CHAR;

/** One shell word, single-quoted: safe for any text in sh, bash and zsh. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Text for POSIX `printf '%b'`: backslashes doubled, characters a terminal acts on as `\0ooo` bytes. */
function printfEscaped(text: string): string {
  let out = '';
  for (const char of text) {
    if (char === '\\') out += '\\\\';
    else if (TERMINAL_CONTROL.test(char)) out += [...Buffer.from(char, 'utf8')].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join('');
    else out += char;
  }
  return out;
}

/**
 * One shell word that prints safely: text holding characters a terminal acts
 * on (escape sequences, a lone `\r`) is built by `printf '%b'` from octal
 * escapes, so showing the command runs nothing on the terminal and the shell
 * still passes every byte. (Command substitution drops trailing line breaks:
 * used for a header or a URL only, which cannot end with one.)
 */
function shellWord(text: string): string {
  return TERMINAL_CONTROL.test(text) ? `"$(printf '%b' ${shellQuote(printfEscaped(text))})"` : shellQuote(text);
}

function clockTime(ms: number): string {
  const at = new Date(ms);
  return [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * A curl command that sends the recorded request again, re-signed with a
 * fresh timestamp. A comment line first says until when (local time) the
 * signature is accepted. The body is sent byte for byte (`--data-raw`).
 */
export function toCurl(record: CallRecord, options: CurlOptions): string {
  // A signed request to the route, from a request that went elsewhere (an asset, a page): never.
  if (record.kind === 'other') {
    throw new UserError('curl_not_route', `${record.request.method} ${record.request.path} did not go to the route, so there is no signed curl for it.`, {
      hint: 'Pick a call to the route from `median-dev calls`.',
    });
  }
  throwIfUnsignedOriginal(record, options.allowUnsignedOriginal === true, 'A signed curl');
  const now = options.now ?? Date.now();
  const body = record.request.body ?? '';
  const comments = [
    `# Signed at ${clockTime(now)} with a fresh timestamp: valid for five minutes (until ${clockTime(now + SIGNATURE_TOLERANCE_MS)}).`,
  ];
  if (record.request.truncated) {
    comments.push(`# The recorded body was cut at ${Buffer.byteLength(body)} bytes; this sends the part that was kept.`);
  }
  // A body with characters a terminal acts on is piped in from printf, byte for byte.
  const isBodyPiped = TERMINAL_CONTROL.test(body);
  const args = [`${isBodyPiped ? `printf '%b' ${shellQuote(printfEscaped(body))} | ` : ''}curl -X ${shellWord(record.request.method)} ${shellWord(options.url)}`];
  for (const [name, value] of Object.entries(record.request.headers ?? {})) {
    if (LEFT_OUT.has(name.toLowerCase())) continue;
    for (const one of Array.isArray(value) ? value : [value]) args.push(`-H ${shellWord(`${name}: ${one}`)}`);
  }
  args.push(`-H ${shellQuote(`${SIGNATURE_HEADER}: ${signBody(options.secret, body, now)}`)}`);
  if (isBodyPiped) args.push('--data-binary @-');
  else if (body !== '') args.push(`--data-raw ${shellQuote(body)}`);
  return `${comments.join('\n')}\n${args.join(' \\\n  ')}`;
}
