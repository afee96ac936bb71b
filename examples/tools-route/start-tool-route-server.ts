import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolRoute, type ToolRouteOptions } from './create-route.js';
import { ROUTE_MESSAGES } from '../../src/median/messages.js';

export interface ToolRouteServerOptions extends ToolRouteOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where the route is mounted; default /api/median. */
  path?: string;
}

export interface ToolRouteServer {
  /** The route's full address, e.g. http://127.0.0.1:3000/api/median. */
  url: string;
  /** http://host:port */
  origin: string;
  port: number;
  /** Stops listening and cuts open connections; idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_ROUTE_PATH = '/api/median';

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/**
 * Serves the tool route over node:http. Resolves once listening; rejects with
 * the listen error (EADDRINUSE, …) or when `signal` aborts first.
 */
export async function startToolRouteServer(
  options: ToolRouteServerOptions,
  { signal }: { signal?: AbortSignal } = {},
): Promise<ToolRouteServer> {
  const host = options.host ?? '127.0.0.1';
  const path = withoutTrailingSlash(options.path ?? DEFAULT_ROUTE_PATH);
  const route = createToolRoute(options); // throws the tools' load errors before anything listens

  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://route.invalid').pathname;
    if (withoutTrailingSlash(pathname) === path) return route(req, res);
    req.resume();
    const body = JSON.stringify({ error: { code: 'not_found', message: ROUTE_MESSAGES.notFound(path) } });
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };

  await new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      void close();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    server.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    server.listen(options.port, host, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { url: `${origin}${path}`, origin, port, close };
}
