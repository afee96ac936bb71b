export interface BackoffOptions {
  /** First delay. Default 1000 ms. */
  baseMs?: number;
  /** Largest delay. Default 10000 ms. */
  maxMs?: number;
  /** Math.random by default; tests pass a fixed one. */
  random?: () => number;
}

export const DEFAULT_BACKOFF = Object.freeze({ baseMs: 1000, maxMs: 10_000 });

/**
 * Delay before reconnect attempt `attempt` (0-based): base doubling up to
 * max, then jittered down by up to a quarter so clients do not reconnect in
 * step. Never above max, never below 3/4 of the un-jittered delay.
 */
export function reconnectDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const baseMs = options.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const maxMs = Math.max(baseMs, options.maxMs ?? DEFAULT_BACKOFF.maxMs);
  const random = options.random ?? Math.random;
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 30);
  const capped = Math.min(maxMs, baseMs * 2 ** exponent);
  const jitter = Math.min(1, Math.max(0, random()));
  return Math.round(capped * (0.75 + 0.25 * jitter));
}
