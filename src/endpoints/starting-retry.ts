import type { Endpoint } from '../median/api-client.js';
import { SYNC_MESSAGES, sameMessage } from '../median/messages.js';
import { syncFix } from '../median/sync-fixes.js';
import { delayOrAbort } from '../shared/delay.js';
import type { Clock } from '../shared/clock.js';

/**
 * How long after median-dev (re)started the dev server, or saw it reload its
 * env file, a 5xx or no answer counts as "still starting", and how the syncs
 * within it are spaced (doubling from `baseMs` up to `maxMs`). Next.js
 * answers 500 for about a second while it recompiles after an env reload; a
 * few seconds cover that with at most a handful of syncs, inside Median's
 * burst of 10 manual syncs.
 */
export interface StartingPolicy {
  windowMs: number;
  baseMs: number;
  maxMs: number;
}

/**
 * Whether a failed sync's message says the dev server was not ready: a 5xx
 * ("The endpoint answered 500.") or no answer (Median's 10 s, no connection).
 * A 4xx, a refused signature, or a 2xx that is not JSON are answers of a
 * route that is up: final at once.
 */
export function isStartingFailure(error: string | null | undefined): boolean {
  if (!error) return false;
  return /^The endpoint answered 5\d\d\.$/.test(error.trim()) || sameMessage(error, SYNC_MESSAGES.didNotAnswer);
}

/** The fix of a sync that still failed once the window was over: it is not the dev server starting, so the docs' fix holds. */
export function stillFailingFix(error: string | null, windowMs: number): string {
  const fix = syncFix(error) ?? 'Check the URL and your server logs.';
  return `It still failed ${Math.round(windowMs / 1000)} s after the dev server (re)started or reloaded its env, so it is not the dev server starting. ${fix}`;
}

export interface StartingRetryOptions {
  policy: StartingPolicy;
  /**
   * When median-dev last (re)started the dev server or saw it reload its env
   * (ms on `clock`); undefined when it started none (no dev server command):
   * then nothing is tried again.
   */
  startingSince?: (() => number | undefined) | undefined;
  /** Median's sync of the endpoint, waited for (`pending` → `synced` or `failed`). */
  waitForSync(endpoint: Endpoint): Promise<Endpoint>;
  /** Asks Median to sync again (with the keeper's API retry). */
  syncAgain(): Promise<Endpoint>;
  /** The first time a sync found the dev server still starting: said as a waiting state, not an error. */
  onWaiting(endpoint: Endpoint, leftMs: number): void;
  clock: Clock;
  signal?: AbortSignal | undefined;
}

/**
 * Waits for the sync of `endpoint`, asked at `askedAt`; while it fails the way
 * a dev server that is still starting does, and was asked within the window,
 * pauses (doubling) and syncs again. Returns the last endpoint: synced, or
 * failed for good (a final answer, or the window over), for the caller to report.
 */
export async function settleWhileStarting(endpoint: Endpoint, askedAt: number, options: StartingRetryOptions): Promise<Endpoint> {
  const { policy, clock } = options;
  let current = endpoint;
  let asked = askedAt;
  let waitMs = policy.baseMs;
  for (let tries = 0; ; tries++) {
    if (current.status === 'pending') current = await options.waitForSync(current);
    const since = options.startingSince?.();
    if (current.status !== 'failed' || since === undefined || !isStartingFailure(current.error)) return current;
    const windowEnd = since + policy.windowMs;
    const leftMs = windowEnd - clock.now();
    // Asked after the window, or none of it left: the dev server had its few seconds, and this is its answer.
    if (asked >= windowEnd || leftMs <= 0) return current;
    if (tries === 0) options.onWaiting(current, leftMs);
    // The last try is asked as the window ends, not after it.
    await delayOrAbort(Math.min(waitMs, leftMs), options.signal, clock);
    waitMs = Math.min(waitMs * 2, policy.maxMs);
    asked = clock.now();
    current = await options.syncAgain();
  }
}
