import { httpFetch } from './http-fetch.js';

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
 * machine, on a connection of its own (httpFetch: Node's own HTTP client);
 * never throws. A body that is not JSON answers with `body: undefined`;
 * bodies past 1 MiB are cut (these APIs answer a few KB). Not `fetch`:
 * while a fetch is pending (a long poll is, for 25 s at a time), Node's
 * bundled undici ticks a 500 ms timer, two wakeups a second of an otherwise
 * idle daemon.
 */
export async function requestLocalJson(url: string, options: LocalJsonRequest = {}): Promise<LocalJsonAnswer> {
  let text: string;
  let status: number;
  try {
    const answer = await httpFetch(url, {
      method: options.method ?? 'GET',
      headers: { accept: 'application/json', ...options.headers },
      ...(options.body !== undefined ? { body: options.body } : {}),
      keepAlive: false,
      maxBodyBytes: MAX_BODY_BYTES,
      ...(options.timeoutMs !== undefined ? { idleTimeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    status = answer.status;
    text = await answer.text();
  } catch (error) {
    return { kind: 'unreachable', errorCode: errorCodeOf(error) };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // answered, but not with JSON: the caller judges the status alone
  }
  return { kind: 'answered', status, body };
}

/** The code under httpFetch's TypeError (ECONNREFUSED, ETIMEDOUT, ERR_INVALID_URL…), ECONNRESET for a body cut short, else the error's name (AbortError). */
function errorCodeOf(error: unknown): string {
  const cause = error instanceof TypeError ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  if (cause?.code) return cause.code;
  if (error instanceof TypeError && error.message === 'terminated') return 'ECONNRESET';
  return (error as { name?: string } | undefined)?.name ?? 'Error';
}
