import { describe, expect, it } from 'vitest';
import { eventsOf, isEvent, useE2eWorld, type E2eWorld } from '../../helpers/e2e-world.js';
import type { SpawnedCli } from '../../helpers/cli-harness.js';
import { rateLimited, useFaultProxy, type FaultProxy } from '../../helpers/use-fault-proxy.js';

/**
 * The Median API misbehaves: a stand-in in front of the emulator answers
 * 429, 5xx, pages or nothing for the next N requests. The daemon and the
 * example route (its child) both reach Median through the stand-in. The
 * retries' timing (Retry-After waited out, growing pauses, a bounded number of
 * tries, the 10 s request timeout) is driven on a manual clock in
 * test/integration/endpoints/median-api-faults.test.ts; here stay what needs
 * the whole daemon: an error reported at once while it stays up, and a wait
 * that SIGINT ends.
 */

/** The daemon's own reads of the endpoint list. */
const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/v1/tool-endpoints';
/** The route's connect (the daemon never POSTs here itself: it opens the route). */
const isConnect = (r: { method: string; path: string }) => r.method === 'POST' && r.path === '/v1/tool-endpoints';
async function useWorldBehindStandIn(): Promise<{ world: E2eWorld; api: FaultProxy; start(): SpawnedCli }> {
  const world = await useE2eWorld();
  const api = await useFaultProxy(world.emulator.url);
  return {
    world,
    api,
    start: () => world.start({ args: ['--median-api', api.url], env: { MEDIAN_API_URL: api.url } }),
  };
}

describe('median-dev start: the Median API misbehaves', () => {
  it('does not wait an hour in place: a Retry-After past its limit is reported at once', async () => {
    const { api, start } = await useWorldBehindStandIn();
    api.failNext(1, rateLimited(3_600), isList);
    const cli = start();

    const error = await cli.waitForEvent((e) => isEvent(e, 'error'));
    expect(error).toMatchObject({ code: 'rate_limited', message: 'Too many requests. Wait a moment and try again.', hint: expect.any(String) });
    expect(api.count(isList)).toBe(1);
    expect(cli.child.exitCode).toBeNull();
  });

  it('waits the docs’ minute when the route says Median rate limited its connect, and stops at once on SIGINT meanwhile', async () => {
    const { api, start } = await useWorldBehindStandIn();
    api.failNext(1_000, rateLimited(1), isConnect);
    const cli = start();

    // The route passes Median's code on, not its Retry-After: the daemon waits the docs' "minute".
    const warning = await cli.waitForEvent((e) => isEvent(e, 'log', { level: 'warn' }));
    expect(warning.message).toMatch(/60 s/);
    // The route's 429 is recorded like any call (its event comes once the record is on disk).
    expect(await cli.waitForEvent((e) => isEvent(e, 'call', { kind: 'connect' }))).toMatchObject({ status: 429 });
    expect(api.count(isConnect)).toBe(1);
    expect(eventsOf(cli, 'error')).toEqual([]);

    const sentAt = Date.now();
    expect(await cli.stop('SIGINT')).toBe(0);
    expect(Date.now() - sentAt).toBeLessThan(3_000);
    expect(api.count(isConnect)).toBe(1);
  });
});
