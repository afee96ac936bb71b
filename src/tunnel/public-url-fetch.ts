import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { httpFetch, type HttpAnswer, type HttpFetch } from '../shared/http-fetch.js';

/**
 * How this machine reaches a tunnel's public URL: `direct` when its name
 * resolves here (or is an address); `via` the tunnel server that handed the
 * URL out when it does not (a self-hosted or loopback server whose names have
 * no DNS, such as the loopback server's `.test` ones): a localtunnel server
 * routes a request by its Host header, so a request sent to the server with
 * the public host in Host takes the same way through the tunnel as one the
 * cloud sends to that name; `none` when neither is there.
 */
export type PublicRoute = { kind: 'direct' } | { kind: 'via'; origin: string } | { kind: 'none'; error: unknown };

export interface PublicReachOptions {
  /** The tunnel server the URL came from (`--tunnel-host`); left out, a name that does not resolve is not reached. */
  tunnelHost?: string;
  /** Whether a hostname resolves here; default a DNS lookup (the system resolver, as fetch uses). */
  resolves?: (hostname: string) => Promise<boolean>;
}

/** A fetch for public tunnel URLs: `direct`, through the tunnel server, or rejected with why neither works. */
export type PublicFetch = (url: string, init?: PublicFetchInit) => Promise<HttpAnswer>;

export interface PublicFetchInit {
  method?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function dnsResolves(hostname: string): Promise<boolean> {
  try {
    await lookup(hostname);
    return true;
  } catch {
    return false; // no such name here (ENOTFOUND), or no resolver answered: not reachable by name
  }
}

/** Which way a public URL is reached from this machine; decided anew each time (networks change). */
export async function findPublicRoute(url: string, options: PublicReachOptions = {}): Promise<PublicRoute> {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch (error) {
    return { kind: 'none', error };
  }
  if (isIP(hostname) !== 0 || (await (options.resolves ?? dnsResolves)(hostname))) return { kind: 'direct' };
  if (options.tunnelHost) return { kind: 'via', origin: new URL(options.tunnelHost).origin };
  return { kind: 'none', error: new Error(`${hostname} does not resolve from this machine, and no tunnel server was given to reach it through`) };
}

/** A fetch that reaches public tunnel URLs the way findPublicRoute says (httpFetch for direct ones). */
export function createPublicFetch(options: PublicReachOptions & { fetch?: HttpFetch } = {}): PublicFetch {
  const direct = options.fetch ?? httpFetch;
  return async (url, init = {}) => {
    const route = await findPublicRoute(url, options);
    if (route.kind === 'none') throw route.error;
    return fetchByRoute(route, url, init, direct);
  };
}

/**
 * One request the way `route` says: `direct` by its own URL, else sent to
 * the tunnel server with the URL's host in the Host header (fetch itself may
 * not set Host), on a connection of its own. Redirects are never followed.
 */
export function fetchByRoute(route: Exclude<PublicRoute, { kind: 'none' }>, url: string, init: PublicFetchInit, direct: HttpFetch = httpFetch): Promise<HttpAnswer> {
  if (route.kind === 'direct') return direct(url, { ...init, redirect: 'manual' });
  const target = new URL(url);
  return httpFetch(`${route.origin}${target.pathname}${target.search}`, { ...init, headers: { ...init.headers, host: target.host }, keepAlive: false });
}
