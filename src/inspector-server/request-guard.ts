import { INSPECTOR_SESSION_HEADER } from '../shared/inspector-session.js';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request to the inspector is refused, before any handler runs. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/**
 * The inspector's gate. A web page must never drive the daemon:
 * - the Host header must name the inspector itself (`127.0.0.1:<port>` or
 *   `localhost:<port>`), else 421: a page whose DNS name was rebound to
 *   127.0.0.1 still sends its own name;
 * - a request another site's page made (`Sec-Fetch-Site: cross-site` or
 *   `same-site`, or an `Origin` that is not ours) reads nothing, so even a
 *   `no-cors` fetch or a `<script src>` gets an error body only;
 * - a request that changes state (and the live channel) must carry our own
 *   `Origin`, which browsers always send on POST and which no page can forge;
 * - the session is a header the page sets (sessionOf), never a cookie.
 */
export function checkHost(headers: IncomingHttpHeaders, port: number): Refusal | undefined {
  const host = (headers.host ?? '').toLowerCase();
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return undefined;
  return {
    status: 421,
    code: 'inspector_host_refused',
    message: `The median-dev inspector answers only to http://127.0.0.1:${port} (or localhost:${port}).`,
  };
}

/** The origin a request that passed checkHost came to: `http://<host>`. */
export function ownOriginOf(headers: IncomingHttpHeaders): string {
  return `http://${(headers.host ?? '').toLowerCase()}`;
}

/** Reads: no other site's page (nor another origin on this machine) may ask. */
export function checkSameOriginRead(headers: IncomingHttpHeaders): Refusal | undefined {
  const site = headerText(headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return originRefused();
  const origin = headerText(headers.origin);
  if (origin !== undefined && origin !== ownOriginOf(headers)) return originRefused();
  return undefined;
}

/** Writes and the live channel: our own Origin, always. */
export function checkSameOriginWrite(headers: IncomingHttpHeaders): Refusal | undefined {
  const origin = headerText(headers.origin);
  if (origin === undefined || origin !== ownOriginOf(headers)) return originRefused();
  return checkSameOriginRead(headers);
}

function originRefused(): Refusal {
  return {
    status: 403,
    code: 'inspector_origin_refused',
    message: 'The median-dev inspector takes requests from its own page only.',
  };
}

export function noSession(): Refusal {
  return {
    status: 401,
    code: 'inspector_no_session',
    message: 'This browser has no inspector session.',
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value).trim().toLowerCase();
}

/**
 * The session id the request's session header carries, if any. The page sets
 * that header on each request itself; no cookie is read, so nothing a browser
 * sends by itself (to any port of 127.0.0.1) is a credential here.
 */
export function sessionOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[INSPECTOR_SESSION_HEADER];
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * Every answer's security headers: a CSP that allows our own files only (no
 * inline script or style, nothing remote, no framing), no sniffing, no
 * referrer (the token is in the first URL), no caching of data.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
});
