import { request } from 'node:http';
import { HEALTH_MARKER_HEADER, PROBE_TIMED_OUT, type HealthProbe } from '../../src/tunnel/index.js';
import { startTunnelServer, type TunnelServer, type TunnelServerOptions } from '../../src/tunnel-server/index.js';
import { useTeardown } from './use-teardown.js';

/** The loopback localtunnel-compatible server on 127.0.0.1 port 0, closed when the test ends. */
export async function useTunnelServer(options: TunnelServerOptions = {}): Promise<TunnelServer> {
  return useTeardown(await startOnPort(options), (server) => server.close());
}

/**
 * A restart on the port a closed server had. That port is free for anyone
 * the moment it closes: with several test files running at once, another
 * process's outbound connection can draw it as its source port for a
 * moment (EADDRINUSE, seen in a full run), so the listen is tried again
 * for up to a second, as a restarted server's supervisor would.
 */
async function startOnPort(options: TunnelServerOptions): Promise<TunnelServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTunnelServer(options);
    } catch (error) {
      const isTaken = (error as { cause?: { code?: string } }).cause?.code === 'EADDRINUSE';
      if (!isTaken || !options.port || attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

export interface TunnelAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends a request to the tunnel server as if to `https://<host>` on the
 * internet: connects to `server.url` with `Host: <host>`. No connection reuse.
 */
export function requestVia(
  server: TunnelServer,
  host: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<TunnelAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { ...options.headers, host },
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${host} in time`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The hostname of a tunnel id on this server, e.g. `abc.lt.median.test`. */
export function tunnelHost(server: TunnelServer, id: string): string {
  return `${id}.${server.domain}`;
}

/**
 * A health probe that reaches `https://<id>.<domain>/…` through the loopback
 * server, the way DNS would send it there; other hosts are unreachable. Like
 * createFetchHealthProbe: the answer is the proxy's when it carries the
 * marker header (with `instanceId`, that instance's); stopped by its timeout,
 * it is `no-answer` (the loopback server always takes the connection).
 */
export function tunnelServerProbe(server: TunnelServer, options: { instanceId?: string } = {}): HealthProbe {
  return async (url, { signal }) => {
    const target = new URL(url);
    if (!server.resolve(target.hostname)) return { kind: 'unreachable', error: new Error(`no DNS for ${target.hostname}`) };
    try {
      const answer = await requestVia(server, target.host, { path: `${target.pathname}${target.search}`, signal });
      const marker = answer.headers[HEALTH_MARKER_HEADER];
      return { kind: 'answered', status: answer.status, isFromProxy: typeof marker === 'string' && (options.instanceId === undefined || marker === options.instanceId) };
    } catch (error) {
      if (signal.reason === PROBE_TIMED_OUT) return { kind: 'no-answer' };
      return { kind: 'unreachable', error };
    }
  };
}
