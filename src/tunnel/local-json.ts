import { request } from 'node:http';

/** What a local HTTP API (cloudflared's metrics server, the ngrok agent's API) answered. */
export type LocalJsonAnswer = { kind: 'answered'; status: number; body: unknown } | { kind: 'unreachable'; errorCode: string };

/**
 * GET a small JSON document from a program's local HTTP API on loopback,
 * with a timeout; never throws. A body that is not JSON answers with
 * `body: undefined`. Bodies past 1 MiB are cut (these APIs answer a few KB).
 */
export function getLocalJson(url: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<LocalJsonAnswer> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ kind: 'unreachable', errorCode: 'ERR_INVALID_URL' });
      return;
    }
    const req = request(
      { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || 80, path: `${target.pathname}${target.search}`, headers: { accept: 'application/json' }, agent: false, timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 1024 * 1024) chunks.push(chunk);
        });
        res.on('error', () => resolve({ kind: 'unreachable', errorCode: 'ECONNRESET' }));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined; // answered, but not with JSON: the caller judges the status alone
          }
          resolve({ kind: 'answered', status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'unreachable', errorCode: error.code ?? error.name }));
    req.end();
  });
}
