import { describe, expect, it } from 'vitest';
import { eventsOf, isEvent, useE2eWorld, type E2eWorld } from '../../helpers/e2e-world.js';
import { spawnCli, type SpawnedCli } from '../../helpers/cli-harness.js';
import { garbage, rateLimited, useFaultProxy, type FaultProxy } from '../../helpers/use-fault-proxy.js';

/**
 * The Median API misbehaves: a stand-in in front of the emulator answers
 * 429, 5xx, pages or nothing for the next N requests. The daemon and the
 * example route (its child) both reach Median through the stand-in.
 */

/** The daemon's own reads of the endpoint list. */
const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/v1/tool-endpoints';
/** The route's connect (the daemon never POSTs here itself: it opens the route). */
const isConnect = (r: { method: string; path: string }) => r.method === 'POST' && r.path === '/v1/tool-endpoints';
/** Well above what one healthy start sends (a list, a connect, a list, a few polls of the sync). */
const HEALTHY_START_REQUESTS = 20;

async function useWorldBehindStandIn(): Promise<{ world: E2eWorld; api: FaultProxy; start(): SpawnedCli }> {
  const world = await useE2eWorld();
  const api = await useFaultProxy(world.emulator.url);
  return {
    world,
    api,
    start: () => world.start({ args: ['--median-api', api.url], env: { MEDIAN_API_URL: api.url } }),
  };
}

const warnings = (cli: SpawnedCli) => eventsOf(cli, 'log', { level: 'warn' });
const synced = (cli: SpawnedCli, timeoutMs = 15_000) => cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), timeoutMs);

describe('median-dev start: the Median API misbehaves', () => {
  it('waits out rate_limited for as long as Retry-After says, then connects', async () => {
    const { world, api, start } = await useWorldBehindStandIn();
    api.failNext(2, rateLimited(1), isList);
    const cli = start();

    const endpoint = await synced(cli);
    const lists = api.requests.filter(isList);
    expect(lists.slice(0, 3).map((r) => r.outcome)).toEqual(['answer', 'answer', 'passed']);
    // Retry-After: 1 is honoured, not a tight loop (a little slack for timer granularity).
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(950);
    expect(lists[2]!.at - lists[1]!.at).toBeGreaterThanOrEqual(950);
    expect(warnings(cli)).toHaveLength(2);
    expect(eventsOf(cli, 'error')).toEqual([]);
    expect(api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
    expect(await world.api.listEndpoints()).toEqual([expect.objectContaining({ id: endpoint.id, status: 'synced' })]);
  });

  it('does not wait an hour in place: a Retry-After past its limit is reported at once', async () => {
    const { api, start } = await useWorldBehindStandIn();
    api.failNext(1, rateLimited(3_600), isList);
    const cli = start();

    const error = await cli.waitForEvent((e) => isEvent(e, 'error'));
    expect(error).toMatchObject({ code: 'rate_limited', message: 'Too many requests. Wait a moment and try again.', hint: expect.any(String) });
    expect(api.count(isList)).toBe(1);
    expect(cli.child.exitCode).toBeNull();
  });

  it('tries a 503 and a page where JSON belongs again, with a pause, and connects', async () => {
    const { api, start } = await useWorldBehindStandIn();
    api.failNext(1, { kind: 'answer', status: 503, body: { error: { code: 'unavailable', message: 'Median is restarting.' } } }, isList);
    api.failNext(1, garbage(200), isList);
    const cli = start();

    await synced(cli);
    const lists = api.requests.filter(isList);
    expect(lists.slice(0, 3).map((r) => r.outcome)).toEqual(['answer', 'answer', 'passed']);
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(400);
    expect(warnings(cli)).toHaveLength(2);
    expect(eventsOf(cli, 'error')).toEqual([]);
    expect(api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
  });

  it('gives up on a Median that keeps failing after a bounded number of tries, stays up, and connects on the next sync', async () => {
    const { world, api, start } = await useWorldBehindStandIn();
    api.failNext(1_000, garbage(502), isList);
    const cli = start();

    const error = await cli.waitForEvent((e) => isEvent(e, 'error'));
    expect(error).toMatchObject({ code: 'median_bad_answer', hint: expect.any(String) });
    // One try and three more, with growing pauses: no tight loop.
    expect(api.count(isList)).toBe(4);
    const lists = api.requests.filter(isList);
    expect(lists[3]!.at - lists[0]!.at).toBeGreaterThanOrEqual(3_000);
    expect(warnings(cli)).toHaveLength(3);
    expect(cli.child.exitCode).toBeNull();

    // Median is back; the next trigger, `median-dev sync` as the hint says, connects.
    api.heal();
    const sync = spawnCli(['sync', '--json', '--data-dir', world.dataDir, '--env-file', world.envFile], { cwd: world.projectDir, env: { MEDIAN_API_URL: api.url } });
    expect(await sync.exited, sync.stderr()).toBe(0);
    const endpoint = await synced(cli);
    expect(JSON.parse(sync.stdout())).toMatchObject({ id: endpoint.id, status: 'synced' });
    expect(await world.api.listEndpoints()).toEqual([expect.objectContaining({ id: endpoint.id, status: 'synced' })]);
    expect(api.count()).toBeLessThanOrEqual(4 + HEALTHY_START_REQUESTS);
    expect(eventsOf(cli, 'error')).toHaveLength(1);
  });

  it('tries again when the Median API does not answer in time', async () => {
    const { api, start } = await useWorldBehindStandIn();
    api.failNext(1, { kind: 'stall' }, isList);
    const cli = start();

    // The API client gives up after its 10 s; the next try gets through.
    await synced(cli, 25_000);
    expect(api.requests.filter(isList).slice(0, 2).map((r) => r.outcome)).toEqual(['stall', 'passed']);
    expect(warnings(cli)).toHaveLength(1);
    expect(eventsOf(cli, 'error')).toEqual([]);
    expect(api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
  }, 40_000);

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
