/**
 * Headers that belong to one connection, not to the message (RFC 9110 §7.6.1),
 * and, with the proxy's own `Via` entry (via-header.ts), the only headers the
 * proxy changes. Everything else (median-signature, content-type,
 * authorization, host, …) reaches the dev server untouched.
 *
 * Two framing notes:
 * - `transfer-encoding` is kept on requests: Node re-frames the body as it
 *   streams it on (chunked in, chunked out), the body bytes stay the same.
 *   On answers it is dropped and Node frames the answer for our caller.
 * - `expect` is dropped: our server already answered `100 Continue`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { keyFingerprint, REPLAY_OF_HEADER } from '../median/index.js';
import { HOP_BY_HOP_HEADERS } from '../shared/hop-by-hop-headers.js';

const REQUEST_HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'expect']);

const RESPONSE_HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'transfer-encoding']);

/** Header names a `Connection` header lists as hop-by-hop, lower-cased. */
const NO_TOKENS: readonly string[] = Object.freeze([]);

function connectionTokens(value: string | string[] | undefined): readonly string[] {
  // The usual values, without splitting (this runs twice per request).
  if (value === undefined || value === 'keep-alive' || value === 'close' || value === 'Keep-Alive') return NO_TOKENS;
  const text = Array.isArray(value) ? value.join(',') : value;
  const tokens: string[] = [];
  for (const part of text.split(',')) {
    const token = part.trim().toLowerCase();
    if (token !== '' && token !== 'close' && token !== 'keep-alive') tokens.push(token);
  }
  return tokens;
}

/** The headers to send on: a copy of `headers` without hop-by-hop ones. */
export function forwardableRequestHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = connectionTokens(headers.connection);
  const out: IncomingHttpHeaders = {};
  for (const name in headers) {
    if (REQUEST_HOP_BY_HOP.has(name) || name === REPLAY_OF_HEADER || (listed.length > 0 && listed.includes(name))) continue;
    out[name] = headers[name];
  }
  return out;
}

/**
 * The answer's headers as a flat `[name, value, name, value…]` list for
 * `writeHead`, in the dev server's order and spelling, without hop-by-hop ones.
 */
export function forwardableResponseHeaders(rawHeaders: readonly string[], connection: string | string[] | undefined): string[] {
  const listed = connectionTokens(connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (RESPONSE_HOP_BY_HOP.has(lower) || (listed.length > 0 && listed.includes(lower))) continue;
    out.push(name, rawHeaders[i + 1] as string);
  }
  return out;
}

/**
 * Headers as recorded: the Bearer key (or any credential in `authorization`)
 * never reaches a record: `Bearer …last4` for a Median key, `<scheme> …`
 * for anything else. Masks in place (the caller passes the received headers
 * once they are no longer sent on).
 */
export function maskCredentials(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const authorization = headers.authorization;
  if (authorization !== undefined) headers.authorization = maskCredential(authorization) as string;
  const proxyAuthorization = headers['proxy-authorization'];
  if (proxyAuthorization !== undefined) headers['proxy-authorization'] = maskCredential(proxyAuthorization) as string;
  return headers as Record<string, string | string[]>;
}

function maskToken(token: string): string {
  // A Median key shows its fingerprint (…last4), like everywhere else in
  // median-dev; any other credential shows nothing.
  return token.startsWith('median_key_') ? keyFingerprint(token) : '…';
}

function maskCredential(value: string | string[]): string | string[] {
  if (Array.isArray(value)) return value.map((v) => maskCredential(v) as string);
  const space = value.indexOf(' ');
  if (space < 0) return maskToken(value);
  return `${value.slice(0, space)} ${maskToken(value.slice(space + 1).trim())}`;
}
