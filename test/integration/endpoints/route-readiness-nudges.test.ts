import { describe, expect, it, vi } from 'vitest';
import { NUDGED_LOOK_GAP_MS, isRouteAnswering, waitForRoute } from '../../../src/endpoints/route-readiness.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { refusedOrigin } from '../../helpers/refused-port.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The pause between two looks while a dev server starts (route-readiness.ts's FAST_POLL_MS). */
const FAST_POLL_MS = 50;

/**
 * The wait for a starting dev server: first at a port that refuses (not up
 * yet), then at a real route that answers (up), the switch made by the test
 * once the first look failed. The pauses run on a manual clock, so a look
 * happens only when the test moves time (or a nudge cuts the pause).
 */
async function useStartingRoute(withNudges: boolean) {
  const route = await useHttpServer((_req, res) => {
    res.statusCode = 401;
    res.end();
  });
  const clock = createManualClock();
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  const state = { origin: await refusedOrigin(), failedLooks: 0 };
  const nudgers = new Set<() => void>();
  const answered = waitForRoute({
    url: () => `${state.origin}/api/median`,
    timeoutMs: 60_000,
    isWorthWaiting: () => true,
    signal: abort.signal,
    clock,
    onNotAnswering: () => (state.failedLooks += 1),
    ...(withNudges
      ? {
          nudges(nudge: () => void) {
            nudgers.add(nudge);
            return () => nudgers.delete(nudge);
          },
        }
      : {}),
  });
  let outcome: boolean | undefined;
  void answered.then((value) => (outcome = value));
  await vi.waitFor(() => expect(state.failedLooks).toBe(1));
  // The dev server listens now, and says so.
  state.origin = route.url;
  return { clock, state, nudge: () => nudgers.forEach((n) => n()), outcome: () => outcome, answered, subscribers: () => nudgers.size };
}

describe('the wait for the dev server', () => {
  it('leaves no connection of its own open on the dev server once a look is answered', async () => {
    const route = await useHttpServer((_req, res) => {
      res.statusCode = 401;
      res.end();
    });
    expect(await isRouteAnswering(`${route.url}/api/median`, { timeoutMs: 5_000 })).toBe(true);
    await vi.waitFor(async () => {
      const open = await new Promise<number>((resolve, reject) => route.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
      expect(open).toBe(0);
    });
  });

  it('looks again as soon as the dev server prints a line, not a whole pause later', async () => {
    const starting = await useStartingRoute(true);
    starting.nudge();
    starting.clock.advance(NUDGED_LOOK_GAP_MS);
    expect(await starting.answered).toBe(true);
    expect(starting.state.failedLooks).toBe(1);
    expect(starting.subscribers()).toBe(0); // unsubscribed once the wait ended
  });

  it('without a line from the dev server, waits the whole pause before the next look', async () => {
    const starting = await useStartingRoute(false);
    starting.clock.advance(NUDGED_LOOK_GAP_MS);
    // The next look would answer; give it the time a look takes on loopback, and see none came.
    await new Promise((resolve) => setImmediate(resolve));
    expect(starting.outcome()).toBeUndefined();
    starting.clock.advance(FAST_POLL_MS - NUDGED_LOOK_GAP_MS);
    expect(await starting.answered).toBe(true);
  });

  it('keeps looks a least gap apart when the dev server prints many lines', async () => {
    const starting = await useStartingRoute(true);
    for (let line = 0; line < 50; line += 1) starting.nudge();
    await new Promise((resolve) => setImmediate(resolve));
    expect(starting.outcome()).toBeUndefined();
    expect(starting.state.failedLooks).toBe(1);
    starting.clock.advance(NUDGED_LOOK_GAP_MS);
    expect(await starting.answered).toBe(true);
  });
});
