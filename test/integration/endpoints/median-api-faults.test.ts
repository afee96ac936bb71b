import { describe, expect, it, vi } from 'vitest';
import { createEndpointKeeper } from '../../../src/endpoints/index.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { createMedianApiClient } from '../../../src/median/index.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { garbage, rateLimited, useFaultProxy, type FaultProxy } from '../../helpers/use-fault-proxy.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import { manifestOf, useEmulator, useManifestServer, type TestEmulator } from '../../helpers/use-emulator.js';

/**
 * The Median API misbehaves while the endpoint keeper connects, as the daemon
 * drives it (the production guard's list, then ensure): a stand-in in front
 * of the real emulator answers 429, 5xx, pages or nothing for the next N
 * requests. The API client and its retries wait on a manual clock, so
 * Retry-After, the growing pauses and the 10 s request timeout take no real
 * time; the stand-in stamps each request with the clock's time. (Moved from
 * the e2e median-api-faults test, same assertions; the e2e keeps the cases
 * that need the whole daemon.)
 */

const isList = (r: { method: string; path: string }) => r.method === 'GET' && r.path === '/v1/tool-endpoints';
/** Well above what one healthy start sends (a list, a connect, a list, a few polls of the sync). */
const HEALTHY_START_REQUESTS = 20;

interface FaultWorld {
  median: TestEmulator;
  api: FaultProxy;
  clock: ManualClock;
  events: NewDaemonEvent[];
  url: string;
  keeper: ReturnType<typeof createEndpointKeeper>;
  /** What the daemon's dispatch does on a new tunnel URL: the production guard, then ensure. */
  connect(): Promise<unknown>;
  warnings(): NewDaemonEvent[];
}

async function useKeeperBehindStandIn(): Promise<FaultWorld> {
  const median = await useEmulator();
  const clock = createManualClock();
  const api = await useFaultProxy(median.emulator.url, clock);
  const route = await useManifestServer();
  route.serve('/a/median', { body: manifestOf('orderStatus') });
  const url = route.url('/a/median');
  const client = createMedianApiClient({ baseUrl: api.url, key: median.emulator.key, clock });
  const events: NewDaemonEvent[] = [];
  let memory = {};
  const keeper = createEndpointKeeper({
    api: () => client,
    readMemory: async () => ({ ...memory }),
    remember: async (patch) => void (memory = { ...memory, ...patch }),
    // The docs' median() route: it connects its MEDIAN_TOOLS_URL with the key (through the stand-in, as the example route does).
    openRoute: async () => {
      await client.connect(url);
      return { kind: 'answer', status: 200, body: { connected: true } };
    },
    autoFix: true,
    emit: (event) => events.push(event),
    routeUrl: 'http://localhost:3000/api/median',
    clock,
  });
  return {
    median,
    api,
    clock,
    events,
    url,
    keeper,
    connect: () => advanceShortWaitsUntil(clock, keeper.productionGuard(url).then(() => keeper.ensure(url))),
    warnings: () => events.filter((e) => e.event === 'log' && e.level === 'warn'),
  };
}

describe('the endpoint keeper: the Median API misbehaves', () => {
  it('waits out rate_limited for as long as Retry-After says, then connects', async () => {
    const world = await useKeeperBehindStandIn();
    world.api.failNext(2, rateLimited(1), isList);

    const endpoint = await world.connect();
    const lists = world.api.requests.filter(isList);
    expect(lists.slice(0, 3).map((r) => r.outcome)).toEqual(['answer', 'answer', 'passed']);
    // Retry-After: 1 is honoured, not a tight loop.
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(lists[2]!.at - lists[1]!.at).toBeGreaterThanOrEqual(1_000);
    expect(world.warnings()).toHaveLength(2);
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(world.api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
    expect(await world.median.client.listEndpoints()).toEqual([expect.objectContaining({ id: (endpoint as { id: string }).id, status: 'synced' })]);
  });

  it('tries a 503 and a page where JSON belongs again, with a pause, and connects', async () => {
    const world = await useKeeperBehindStandIn();
    world.api.failNext(1, { kind: 'answer', status: 503, body: { error: { code: 'unavailable', message: 'Median is restarting.' } } }, isList);
    world.api.failNext(1, garbage(200), isList);

    expect(await world.connect()).toMatchObject({ url: world.url, status: 'synced' });
    const lists = world.api.requests.filter(isList);
    expect(lists.slice(0, 3).map((r) => r.outcome)).toEqual(['answer', 'answer', 'passed']);
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(400);
    expect(world.warnings()).toHaveLength(2);
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(world.api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
  });

  it('gives up on a Median that keeps failing after a bounded number of tries, and connects on the next sync', async () => {
    const world = await useKeeperBehindStandIn();
    world.api.failNext(1_000, garbage(502), isList);

    const error = await world.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'median_bad_answer', hint: expect.any(String) });
    // One try and three more, with growing pauses: no tight loop.
    expect(world.api.count(isList)).toBe(4);
    const lists = world.api.requests.filter(isList);
    expect(lists[3]!.at - lists[0]!.at).toBeGreaterThanOrEqual(3_000);
    expect(world.warnings()).toHaveLength(3);

    // Median is back; the next trigger (`median-dev sync` runs the same connect) connects.
    world.api.heal();
    const endpoint = await world.connect();
    expect(endpoint).toMatchObject({ url: world.url, status: 'synced' });
    expect(await world.median.client.listEndpoints()).toEqual([expect.objectContaining({ id: (endpoint as { id: string }).id, status: 'synced' })]);
    expect(world.api.count()).toBeLessThanOrEqual(4 + HEALTHY_START_REQUESTS);
  });

  it('tries again when the Median API does not answer in time', async () => {
    const world = await useKeeperBehindStandIn();
    world.api.failNext(1, { kind: 'stall' }, isList);

    const connected = world.connect();
    await vi.waitFor(() => expect(world.api.count(isList)).toBe(1));
    // The API client gives up after its 10 s; the next try gets through.
    world.clock.advance(10_000);
    expect(await connected).toMatchObject({ url: world.url, status: 'synced' });
    expect(world.api.requests.filter(isList).slice(0, 2).map((r) => r.outcome)).toEqual(['stall', 'passed']);
    expect(world.warnings()).toHaveLength(1);
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(world.api.count()).toBeLessThanOrEqual(HEALTHY_START_REQUESTS);
  });
});
