import type { Endpoint, MedianApiClient } from '../median/api-client.js';
import type { Clock } from '../shared/clock.js';

/**
 * How old the production guard's endpoint list may be for `ensure` to decide
 * on it instead of asking Median again. A heal asks the guard as the dev
 * server starts and `ensure` once it answers: for a dev server that starts in
 * under this (the example route, Vite, Express) that is one round trip to
 * Median less on every heal (~20 ms on loopback, a round trip to the cloud
 * from a laptop). Nothing of this project changes the list in between; a list
 * someone else changed meanwhile meets the answers a stale one would, which
 * the endpoint keeper handles (`duplicate_endpoint`, `endpoint_not_found`).
 */
export const GUARD_LIST_REUSE_MS = 2_000;

/** The endpoint list read last, kept to be taken once while it is fresh. */
export interface FreshList {
  /** Keeps `endpoints`, read by `api` (the key in use) from a request sent at `askedAt` (ms on the clock). */
  keep(endpoints: Endpoint[], askedAt: number, api: MedianApiClient): void;
  /** The kept list, once, if it was read by `api` within GUARD_LIST_REUSE_MS; else undefined. Either way it is dropped. */
  take(api: MedianApiClient): Endpoint[] | undefined;
}

export function createFreshList(clock: Clock): FreshList {
  let kept: { endpoints: Endpoint[]; askedAt: number; api: MedianApiClient } | undefined;
  return {
    keep(endpoints, askedAt, api) {
      kept = { endpoints, askedAt, api };
    },
    take(api) {
      const list = kept;
      kept = undefined;
      if (!list || list.api !== api || clock.now() - list.askedAt > GUARD_LIST_REUSE_MS) return undefined;
      return list.endpoints;
    },
  };
}
