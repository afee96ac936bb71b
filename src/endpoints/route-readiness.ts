import { systemClock, type Clock } from '../shared/clock.js';
import { createNudgedPause, type NudgedPause } from './nudged-pause.js';
import { httpFetch } from '../shared/http-fetch.js';

export interface RouteReadinessOptions {
  /** The route on the dev server itself (not through the proxy: nothing to record); a function while its origin may still be found. */
  url: string | (() => string | undefined);
  timeoutMs: number;
  /** Stops the wait early (the child exited: it will not come up). */
  isWorthWaiting(): boolean;
  signal?: AbortSignal;
  /** Called after each look that got no answer, with the time waited so far (the wait goes on). */
  onNotAnswering?: (elapsedMs: number) => void;
  /** The wait's deadline and the pauses between looks run on it (tests drive it); real time when left out. */
  clock?: Clock;
  /**
   * Until this time (ms on `clock`), a 5xx is the dev server still starting
   * (Next.js answers 500 while it compiles), not an answer: looked at again.
   * After it, or left out, any HTTP answer counts.
   */
  startingUntil?: () => number | undefined;
  /** Called with the status of the answer that ended the wait. */
  onAnswered?: (status: number) => void;
  /**
   * Subscribes to what makes a look worth taking at once rather than after
   * the pause (the dev server printed a line: "listening on …" is usually
   * the moment it answers); returns the unsubscribe. Looks stay at least
   * NUDGED_LOOK_GAP_MS apart, so a chatty dev server is not asked per line.
   */
  nudges?: (nudge: () => void) => () => void;
}

const FAST_POLL_MS = 50;
const FAST_POLL_FOR_MS = 3_000;
const SLOW_POLL_MS = 500;
/** The least time between two looks when the dev server's output asks for one sooner. */
export const NUDGED_LOOK_GAP_MS = 5;

/**
 * Waits until the dev server answers at the route (any HTTP answer: an
 * unsigned GET gets its 401; a 5xx only after `startingUntil`), so a sync
 * does not reach a child that is still starting and fail with our proxy's
 * 502 or its own compile's 500. Returns whether it answered; gives
 * up at `timeoutMs`, on abort, or once `isWorthWaiting()` turns false.
 */
export async function waitForRoute(options: RouteReadinessOptions): Promise<boolean> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  const deadline = startedAt + options.timeoutMs;
  const nudged = createNudgedPause(clock, options.nudges);
  try {
    return await look(options, clock, startedAt, deadline, nudged);
  } finally {
    nudged.close();
  }
}

async function look(options: RouteReadinessOptions, clock: Clock, startedAt: number, deadline: number, nudged: NudgedPause): Promise<boolean> {
  while (!options.signal?.aborted && options.isWorthWaiting()) {
    const left = deadline - clock.now();
    if (left <= 0) return false;
    // Refused or reset: the dev server is not listening yet; try again shortly.
    // No URL yet: where the dev server listens is not known, so nothing is asked (a guess could be another app).
    const url = typeof options.url === 'string' ? options.url : options.url();
    const lookedAt = clock.now();
    nudged.looking();
    const status = url === undefined ? undefined : await answerStatus(url, left, options.signal, 'median-dev (waiting for the dev server)', clock);
    const until = options.startingUntil?.();
    const isStarting = status !== undefined && status >= 500 && until !== undefined && clock.now() < until;
    if (status !== undefined && !isStarting) {
      options.onAnswered?.(status);
      return true;
    }
    // A 5xx while starting: it is listening, so not the "nothing answers" of onNotAnswering.
    if (!isStarting) options.onNotAnswering?.(clock.now() - startedAt);
    // A refused connection costs little on loopback: ask often while a dev server usually starts.
    const wait = clock.now() - startedAt < FAST_POLL_FOR_MS ? FAST_POLL_MS : SLOW_POLL_MS;
    // A nudge asks again only where nothing listened: a starting 5xx's own log line must not ask for the next 5xx.
    const notBefore = status === undefined ? lookedAt + NUDGED_LOOK_GAP_MS : undefined;
    await nudged.pause(Math.min(wait, Math.max(0, deadline - clock.now())), notBefore, options.signal);
  }
  return false;
}

/** One look: does the dev server answer at the route right now (any HTTP answer)? */
export async function isRouteAnswering(url: string, options: { timeoutMs: number; signal?: AbortSignal; clock?: Clock }): Promise<boolean> {
  return (await answerStatus(url, options.timeoutMs, options.signal, 'median-dev (checking on the dev server)', options.clock ?? systemClock)) !== undefined;
}

/** The status of the HTTP answer from `url` within `timeoutMs` on `clock`; undefined when none came. */
async function answerStatus(url: string, timeoutMs: number, signal: AbortSignal | undefined, userAgent: string, clock: Clock): Promise<number | undefined> {
  const timeout = new AbortController();
  const timer = clock.setTimer(() => timeout.abort(new DOMException('The dev server did not answer in time.', 'TimeoutError')), timeoutMs);
  try {
    const response = await httpFetch(url, { headers: { 'user-agent': userAgent }, redirect: 'manual', signal: signal ? AbortSignal.any([timeout.signal, signal]) : timeout.signal });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined; // refused, reset or silent: not answering
  } finally {
    timer.cancel();
  }
}
