import type { DaemonFact } from '../events/daemon-facts.js';
import type { NewDaemonEvent } from '../events/daemon-events.js';
import type { Endpoint } from '../median/api-client.js';
import type { Clock } from '../shared/clock.js';
import { pause } from '../shared/delay.js';
import { isRouteAnswering } from './route-readiness.js';

export interface RouteRetryOptions {
  /** The route on the dev server itself (a function: the dev server's origin may be found later). */
  routeUrl: string | (() => string);
  /** Whether `toolsUrl` is still the one in use (a newer URL ends an older watch). */
  isCurrent(toolsUrl: string): boolean;
  /** Where `route.answering` goes (the daemon's dispatch). */
  report(fact: DaemonFact): void;
  emit(event: NewDaemonEvent): void;
  /** The first wait between two looks, doubling after. Default 1 s. */
  firstWaitMs?: number;
  /** The longest wait between two looks. Default 30 s. */
  maxWaitMs?: number;
  signal: AbortSignal;
  /** The waits between looks and each look's timeout run on it (tests drive it); real time when left out. */
  clock?: Clock | undefined;
}

/**
 * The endpoint could not be fixed because the dev server did not answer
 * (not started yet, crashed, started later by hand): look at the route now
 * and then, backing off from 1 s to every 30 s, and report `route.answering`
 * once it answers, so the endpoint is fixed again. One watch at a time; it
 * ends with the daemon or when another URL is in use.
 */
export interface RouteRetry {
  /**
   * Watches the route for `toolsUrl` (a watch under way: joins it). Resolves
   * when the watch ends: `route.answering` reported, the route answering at
   * the first look, another URL in use, or the daemon closing; no look follows.
   */
  watch(toolsUrl: string): Promise<void>;
}

export function createRouteRetry(options: RouteRetryOptions): RouteRetry {
  const { signal, clock } = options;
  const look = (): Promise<boolean> => isRouteAnswering(routeUrl(), { timeoutMs: 2_000, signal, ...(clock ? { clock } : {}) });
  const routeUrl = (): string => (typeof options.routeUrl === 'string' ? options.routeUrl : options.routeUrl());
  let watching: Promise<void> | undefined;
  const watch = (toolsUrl: string): Promise<void> => {
    if (watching) return watching;
    const current = (async () => {
      // Answering now: the failure was not the dev server's absence; do not loop on it.
      if (await look()) return;
      let wait = options.firstWaitMs ?? 1_000;
      const maxWait = options.maxWaitMs ?? 30_000;
      while (!signal.aborted) {
        await pause(wait, signal, clock);
        wait = Math.min(wait * 2, maxWait);
        if (signal.aborted || !options.isCurrent(toolsUrl)) break;
        if (!(await look())) continue;
        options.emit({ event: 'log', level: 'info', message: 'The dev server answers again: fixing the endpoint.' });
        watching = undefined; // the reaction to the report may watch again
        options.report({ type: 'route.answering', toolsUrl });
        return;
      }
    })().finally(() => {
      if (watching === current) watching = undefined;
    });
    watching = current;
    return current;
  };
  return { watch };
}

/** Median could not reach the route (no endpoint yet, or a sync that found the dev server down). */
export function isWaitingForRoute(endpoint: Endpoint | undefined): boolean {
  if (endpoint === undefined) return true;
  if (endpoint.status !== 'failed' || !endpoint.error) return false;
  return /did not answer|answered 50[234]\b/.test(endpoint.error);
}
