import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What a local HTTP API (the emulator, cloudflared's metrics server, the ngrok agent's API) answered. */
export type LocalJsonAnswer = { kind: 'answered'; status: number; body: unknown } | { kind: 'unreachable'; errorCode: string };

export interface LocalJsonRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as it is (the caller's JSON text). */
  body?: string;
  /** The socket's idle timeout; none by default (the caller's signal bounds the request). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * One request for a small JSON document from a program's HTTP API on this
 * machine, with Node's own HTTP client; never throws. A body that is not JSON
 * answers with `body: undefined`; bodies past 1 MiB are cut (these APIs
 * answer a few KB). Not `fetch`: while a fetch is pending (a long poll is,
 * for 25 s at a time), Node's bundled undici ticks a 500 ms timer, two
 * wakeups a second of an otherwise idle daemon.
 */
export function requestLocalJson(url: string, options: LocalJsonRequest = {}): Promise<LocalJsonAnswer> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ kind: 'unreachable', errorCode: 'ERR_INVALID_URL' });
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const onAnswer = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
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
    };
    const req = send(
      {
        protocol: target.protocol,
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port || (target.protocol === 'https:' ? 443 : 80),
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: { accept: 'application/json', ...options.headers, ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
        agent: false,
        ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      onAnswer,
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'unreachable', errorCode: error.code ?? error.name }));
    req.end(options.body);
  });
}
