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
});
