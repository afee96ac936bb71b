import type { RouteConnectOutcome } from '../endpoints/index.js';
import { parseRetryAfter } from '../median/index.js';
import { pause } from '../shared/delay.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { httpFetch, type HttpAnswer } from '../shared/http-fetch.js';
import { reconnectDelayMs, type BackoffOptions } from '../tunnel/index.js';
import type { TargetWatch } from './target-watch.js';

export interface RouteOpenerOptions {
  /** The route's URL through our own proxy (so the connect is recorded). */
  url: string;
  key(): string | undefined;
  /** How long to wait for the dev server to come up (it may still be compiling). */
  readyTimeoutMs: number;
  /** Per attempt. */
  requestTimeoutMs?: number;
  /** Between attempts: the tunnel's backoff policy, from 1 s doubling to 10 s (tests shorten it). */
  backoff?: BackoffOptions;
  signal?: AbortSignal;
  /** Told when our proxy found nothing at --target for TARGET_SILENT_AFTER_MS, and when it answers. */
  targetWatch?: TargetWatch;
  /** What the waits between tries, the per-try timeout and the readiness deadline run on (tests drive it); real time when left out. */
  clock?: Clock;
  /**
   * Until this time (ms on `clock`) the dev server is still starting (median-dev
   * just (re)started or reloaded it): a 5xx that is not the route's own coded
   * error (Next.js's 500 page while it compiles) is tried again, not returned.
   */
  startingUntil?: () => number | undefined;
}


/**
 * Opens the route once with `Authorization: Bearer <MEDIAN_KEY>` — the docs'
 * `curl -H "authorization: Bearer $MEDIAN_KEY" http://localhost:3000/api/median`.
 * While the dev server is not answering yet (our proxy's 502), it waits and
 * tries again until `readyTimeoutMs`, backing off as the tunnel does, so a dead
 * dev server is not opened every couple of seconds (each try is recorded).
 * So does a bare 5xx before `startingUntil` (a dev server still compiling).
 */
export async function openRouteWithKey(options: RouteOpenerOptions): Promise<RouteConnectOutcome> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  const deadline = startedAt + options.readyTimeoutMs;
  let attempt = 0;
  let lastReason = 'the dev server is not answering';
  while (!options.signal?.aborted) {
    const key = options.key();
    if (!key) return { kind: 'unreachable', reason: 'no MEDIAN_KEY is set' };
    try {
      const timeoutAbort = new AbortController();
      const timeout = timeoutAbort.signal;
      const timer = clock.setTimer(() => timeoutAbort.abort(new DOMException('The operation timed out.', 'TimeoutError')), options.requestTimeoutMs ?? 15_000);
      let response: HttpAnswer;
      let text: string;
      try {
        response = await httpFetch(options.url, {
          headers: { authorization: `Bearer ${key}`, 'user-agent': 'median-dev' },
          signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
          redirect: 'manual',
        });
        text = await response.text();
      } finally {
        timer.cancel();
      }
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      // Our proxy's own answer for a dev server that is not there (502) or not up yet (503): not the route's.
      const code = (body as { error?: { code?: string } } | null)?.error?.code;
      const isOurProxyGap = (response.status === 502 && code === 'target_unreachable') || (response.status === 503 && code === 'dev_server_starting');
      const until = options.startingUntil?.();
      const isCompiling = !isOurProxyGap && response.status >= 500 && typeof code !== 'string' && until !== undefined && clock.now() < until;
      if (!isOurProxyGap && !isCompiling) {
        options.targetWatch?.answered();
        // A route that passes Median's Retry-After on (a 429) sets how long the daemon waits before opening it again.
        const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'), clock.now());
        return { kind: 'answer', status: response.status, body, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
      }
      if (isOurProxyGap) {
        lastReason = 'the dev server is not answering';
        options.targetWatch?.unreachable('the connection was refused, or nothing listens there', clock.now() - startedAt, false);
      } else {
        lastReason = `the dev server answered ${response.status} while it was starting`; // compiling: tried again after the pause
      }
    } catch (error) {
      lastReason = error instanceof Error ? error.message : String(error);
    }
    const wait = reconnectDelayMs(attempt, options.backoff);
    attempt += 1;
    if (clock.now() + wait > deadline) break;
    await pause(wait, options.signal, clock);
  }
  return { kind: 'unreachable', reason: lastReason };
}
