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

export interface ReopenScheduleOptions extends BackoffOptions {
  /**
   * The first reopen after a loss that ends a calm spell waits only this
   * long (jittered like the backoff). Default 200 ms.
   */
  quickMs?: number;
}

export const DEFAULT_QUICK_REOPEN_MS = 200;

/**
 * Delay before the next reopen after a loss. `failures`: reopens that failed
 * since this loss; `recentLosses`: losses just before this one (a flapping
 * tunnel). A calm tunnel's first reopen is quick, then the backoff runs from
 * its base (≈0.2 s, 1 s, 2 s, 4 s …); a flapping tunnel gets no quick try and
 * starts further up the backoff, so a server that keeps dropping us is not
 * hammered.
 */
export function reopenDelayMs(failures: number, recentLosses: number, options: ReopenScheduleOptions = {}): number {
  const calm = Math.max(0, Math.floor(recentLosses)) === 0;
  const failed = Math.max(0, Math.floor(failures));
  if (calm && failed === 0) {
    const quickMs = options.quickMs ?? DEFAULT_QUICK_REOPEN_MS;
    const jitter = Math.min(1, Math.max(0, (options.random ?? Math.random)()));
    return Math.round(quickMs * (0.75 + 0.25 * jitter));
  }
  return reconnectDelayMs(calm ? failed - 1 : failed + Math.floor(recentLosses), options);
}

/**
 * One backoff policy for a tunnel: the retries of its first open and its
 * reopens after a loss wait by the same rule (the first open's n-th failure
 * waits as long as a reopen after n failed reopens of a calm tunnel).
 */
export interface TunnelBackoff {
  /** Wait before trying the first open again after `failures` (≥ 1) failed tries. */
  afterFailedOpen(failures: number): number;
  /** Wait before a reopen: `failures` reopens failed since the loss, `recentLosses` losses just before it. */
  afterLoss(failures: number, recentLosses: number): number;
}

export function createTunnelBackoff(options: ReopenScheduleOptions = {}): TunnelBackoff {
  return {
    afterFailedOpen: (failures) => reopenDelayMs(Math.max(1, failures), 0, options),
    afterLoss: (failures, recentLosses) => reopenDelayMs(failures, recentLosses, options),
  };
}
