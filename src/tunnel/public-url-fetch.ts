import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

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
export type PublicFetch = (url: string, init?: PublicFetchInit) => Promise<Response>;

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

/** A fetch that reaches public tunnel URLs the way findPublicRoute says (`fetch` for direct ones). */
export function createPublicFetch(options: PublicReachOptions & { fetch?: typeof fetch } = {}): PublicFetch {
  const direct = options.fetch ?? fetch;
  return async (url, init = {}) => {
    const route = await findPublicRoute(url, options);
    if (route.kind === 'none') throw route.error;
    return fetchByRoute(route, url, init, direct);
  };
}

/** One request the way `route` says: `direct` with fetch, else through the tunnel server. Redirects are never followed. */
export function fetchByRoute(route: Exclude<PublicRoute, { kind: 'none' }>, url: string, init: PublicFetchInit, direct: typeof fetch = fetch): Promise<Response> {
  return route.kind === 'direct' ? direct(url, { ...init, redirect: 'manual' }) : fetchVia(route.origin, url, init);
}

/**
 * Sends the request to `origin` with the URL's host in the Host header (fetch
 * itself may not set Host); no redirects followed, no connection reuse.
 */
function fetchVia(origin: string, url: string, init: PublicFetchInit): Promise<Response> {
  const via = new URL(origin);
  const target = new URL(url);
  const request = via.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = request(
      {
        host: via.hostname.replace(/^\[|\]$/g, ''),
        port: via.port || undefined,
        method: init.method ?? 'GET',
        path: `${target.pathname}${target.search}`,
        headers: { ...init.headers, host: target.host },
        ...(via.protocol === 'https:' ? { servername: via.hostname } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
        agent: false,
      },
      (res) => collect(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end();
  });
}

function collect(res: IncomingMessage): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const status = res.statusCode ?? 0;
      // A Response cannot carry a body with 204/304, nor a status outside 200–599.
      const hasBody = status !== 204 && status !== 304;
      resolve(new Response(hasBody ? Buffer.concat(chunks) : null, { status: status >= 200 && status <= 599 ? status : 502, headers }));
    });
  });
}
