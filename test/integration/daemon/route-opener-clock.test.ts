import { describe, expect, it } from 'vitest';
import { openRouteWithKey } from '../../../src/daemon/route-opener.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useHttpServer } from '../../helpers/use-http-server.js';

/**
 * Opening the route while the dev server is not up, on a manual clock: the
 * tries back off as the tunnel does and the readiness wait ends on its
 * deadline, in clock time, not real time. The stand-in answers what our
 * recording proxy answers for a dev server that is not there (502
 * target_unreachable), stamped with the clock's time.
 */
describe('opening the route before the dev server answers (manual clock)', () => {
  it('backs off 1 s, 2 s, 4 s (a quarter of jitter at most) and gives up at the readiness deadline', async () => {
    const clock = createManualClock();
    const tries: number[] = [];
    const proxy = await useHttpServer((_req, res) => {
      tries.push(clock.now());
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'target_unreachable', message: 'Nothing answers at the dev server.' } }));
    });

    const outcome = await advanceShortWaitsUntil(
      clock,
      openRouteWithKey({ url: `${proxy.url}/api/median`, key: () => `median_key_${'a'.repeat(32)}`, readyTimeoutMs: 60_000, backoff: { random: () => 0 }, clock }),
      10_000,
    );

    expect(outcome).toEqual({ kind: 'unreachable', reason: 'the dev server is not answering' });
    const gaps = tries.slice(1).map((at, i) => at - tries[i]!);
    // The fourth try comes after at least 5.25 s (0.75 + 1.5 + 3 s); no try comes sooner than the backoff says.
    expect(gaps.slice(0, 3)).toEqual([750, 1_500, 3_000]);
    expect(tries[3]! - tries[0]!).toBeGreaterThanOrEqual(5_250);
    // Capped at 10 s a try: a minute holds a bounded number of tries, the last one inside the deadline.
    expect(gaps.every((gap) => gap <= 10_000)).toBe(true);
    expect(tries.at(-1)! - tries[0]!).toBeLessThanOrEqual(60_000);
    expect(tries.length).toBeLessThan(15);
    expect(clock.pendingTimers()).toBe(0);
  });

  /**
   * A route that answers as `next dev` does while it compiles after a start or
   * an env reload (a 500 whose body is Next's error text, not the route's
   * JSON) for its first `compiling` requests, then the median() route's connect answer.
   */
  async function useCompilingRoute(clock: ReturnType<typeof createManualClock>, compiling: number, fiveHundred = 'SyntaxError: Unexpected end of JSON input') {
    const tries: number[] = [];
    const route = await useHttpServer((_req, res) => {
      tries.push(clock.now());
      if (tries.length <= compiling) return void res.writeHead(500, { 'content-type': 'text/plain' }).end(fiveHundred);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ connected: true }));
    });
    return { tries, url: `${route.url}/api/median` };
  }
  const KEY = `median_key_${'a'.repeat(32)}`;

  it('while the dev server is starting, its bare 500s are tried again until the connect answer', async () => {
    const clock = createManualClock();
    const route = await useCompilingRoute(clock, 2);
    const until = clock.now() + 5_000;
    const open = openRouteWithKey({ url: route.url, key: () => KEY, readyTimeoutMs: 60_000, backoff: { random: () => 0 }, clock, startingUntil: () => until });
    expect(await advanceShortWaitsUntil(clock, open, 10_000)).toMatchObject({ kind: 'answer', status: 200, body: { connected: true } });
    expect(route.tries).toHaveLength(3);
  });

  it('a 500 is the answer at once when the dev server is not starting, or once the window is over', async () => {
    const clock = createManualClock();
    const notStarting = await useCompilingRoute(clock, 1);
    const first = await openRouteWithKey({ url: notStarting.url, key: () => KEY, readyTimeoutMs: 60_000, clock });
    expect(first).toMatchObject({ kind: 'answer', status: 500 });
    expect(notStarting.tries).toHaveLength(1);

    const keepsFailing = await useCompilingRoute(clock, 1_000);
    const until = clock.now() + 2_000;
    const open = openRouteWithKey({ url: keepsFailing.url, key: () => KEY, readyTimeoutMs: 60_000, backoff: { random: () => 0 }, clock, startingUntil: () => until });
    expect(await advanceShortWaitsUntil(clock, open, 10_000)).toMatchObject({ kind: 'answer', status: 500 });
    // Tries at 0, 0.75 and 2.25 s: the one after the window's end is the answer.
    expect(keepsFailing.tries.map((at) => at - keepsFailing.tries[0]!)).toEqual([0, 750, 2_250]);
  });

  it("the route's own coded 500 is final even while starting", async () => {
    const clock = createManualClock();
    const coded = JSON.stringify({ error: { code: 'invalid_median_key', message: 'Median: MEDIAN_KEY must start with median_key_.' } });
    const route = await useCompilingRoute(clock, 1, coded);
    const outcome = await openRouteWithKey({ url: route.url, key: () => KEY, readyTimeoutMs: 60_000, clock, startingUntil: () => clock.now() + 5_000 });
    expect(outcome).toMatchObject({ kind: 'answer', status: 500, body: { error: { code: 'invalid_median_key' } } });
    expect(route.tries).toHaveLength(1);
  });
});
