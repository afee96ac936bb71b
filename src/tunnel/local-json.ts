import { requestLocalJson, type LocalJsonAnswer } from '../shared/local-json-request.js';

export type { LocalJsonAnswer };

/**
 * GET a small JSON document from a program's local HTTP API on loopback
 * (cloudflared's metrics server, the ngrok agent's API), with a timeout
 * (default 2 s); never throws.
 */
export function getLocalJson(url: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<LocalJsonAnswer> {
  return requestLocalJson(url, { timeoutMs: options.timeoutMs ?? 2_000, ...(options.signal ? { signal: options.signal } : {}) });
}
