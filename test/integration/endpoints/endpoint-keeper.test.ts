import { describe, expect, it } from 'vitest';
import { createEndpointKeeper, GUARD_LIST_REUSE_MS, type ProjectMemory, type RouteConnectOutcome } from '../../../src/endpoints/index.js';
import { createMedianApiClient, type MedianApiClient } from '../../../src/median/index.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { errorCode } from '../../../src/shared/errors.js';
import { manifestOf, useEmulator, useManifestServer, type ManifestServer, type TestEmulator } from '../../helpers/use-emulator.js';

/**
 * The endpoint keeper against the real emulator: every endpoint it makes,
 * changes, adopts or removes is a real one in the emulator's registry, and
 * every sync fetches a real manifest from a route on 127.0.0.1.
 */

const TOOLS = ['orderStatus', 'refundOrder'];

interface KeeperWorld {
  median: TestEmulator;
  route: ManifestServer;
  memory: ProjectMemory;
  events: NewDaemonEvent[];
  /** What the next route open does (default: connect `url` with the key, as the median() route does). */
  openRoute: () => Promise<RouteConnectOutcome>;
  keeper: ReturnType<typeof createEndpointKeeper>;
  /** `keeper.ensure(url)` with the route's MEDIAN_TOOLS_URL set to `url`. */
  ensure(url: string): ReturnType<ReturnType<typeof createEndpointKeeper>['ensure']>;
  url(path: string): string;
  endpointActions(): string[];
  errorCodes(): string[];
}

/** A route that connects `toolsUrl` itself, as the docs' median() route does on a Bearer-key request. */
function connectingRoute(world: Pick<KeeperWorld, 'median'>, toolsUrl: () => string): () => Promise<RouteConnectOutcome> {
  return async () => {
    try {
      await world.median.client.connect(toolsUrl());
      return { kind: 'answer', status: 200, body: { connected: true } };
    } catch (error) {
      return { kind: 'answer', status: 409, body: { error: { code: errorCode(error), message: String((error as Error).message) } } };
    }
  };
}

async function useKeeper(options: { autoFix?: boolean; memory?: ProjectMemory; clock?: ManualClock; api?: (median: TestEmulator) => () => MedianApiClient } = {}): Promise<KeeperWorld> {
  const median = await useEmulator();
  const api = options.api?.(median) ?? (() => median.client);
  const route = await useManifestServer();
  for (const path of ['/a/median', '/b/median', '/c/median']) route.serve(path, { body: manifestOf(...TOOLS) });
  let target = '';
  const world = {
    median,
    route,
    memory: { ...options.memory },
    events: [] as NewDaemonEvent[],
    url: (path: string) => route.url(path),
  } as KeeperWorld;
  world.openRoute = connectingRoute(world, () => target);
  world.keeper = createEndpointKeeper({
    api,
    ...(options.clock ? { clock: options.clock } : {}),
    readMemory: async () => ({ ...world.memory }),
    remember: async (patch) => {
      world.memory = { ...world.memory, ...patch, tunnelUrls: [...(world.memory.tunnelUrls ?? []), patch.toolsUrl] };
    },
    openRoute: () => world.openRoute(),
    autoFix: options.autoFix ?? true,
    emit: (event) => world.events.push(event),
    syncTimeoutMs: 2_000,
    retry: { transient: { retries: 1, baseMs: 10, maxMs: 20 } },
    routeUrl: 'http://localhost:3000/api/median',
  });
  // The route connects whatever URL the keeper is making sure of (its MEDIAN_TOOLS_URL).
  world.ensure = (url) => {
    target = url;
    return world.keeper.ensure(url);
  };
  world.endpointActions = () => world.events.flatMap((e) => (e.event === 'endpoint' ? [e.action] : []));
  world.errorCodes = () => world.events.flatMap((e) => (e.event === 'error' ? [e.code] : []));
  return world;
}

describe('the endpoint keeper (a project with no endpoint yet)', () => {
  it('connects through the route, remembers the endpoint and waits for its sync', async () => {
    const world = await useKeeper();
    const url = world.url('/a/median');

    const endpoint = await world.ensure(url);

    expect(endpoint).toMatchObject({ url, status: 'synced' });
    expect(endpoint?.tools.map((t) => t.name).sort()).toEqual(TOOLS);
    expect(world.endpointActions()).toEqual(['connected', 'synced']);
    expect(world.memory).toMatchObject({ endpointId: endpoint?.id, toolsUrl: url });
    expect(await world.median.client.listEndpoints()).toHaveLength(1);
  });

  it('says route_unreachable and makes nothing when the route cannot be opened', async () => {
    const world = await useKeeper();
    world.openRoute = async () => ({ kind: 'unreachable', reason: 'connect ECONNREFUSED 127.0.0.1:3000' });

    expect(await world.ensure(world.url('/a/median'))).toBeUndefined();

    expect(world.errorCodes()).toEqual(['route_unreachable']);
    expect(world.memory.endpointId).toBeUndefined();
    expect(await world.median.client.listEndpoints()).toEqual([]);
  });

  it('says connect_answer_unexpected when something other than the median() route answers 200', async () => {
    const world = await useKeeper();
    world.openRoute = async () => ({ kind: 'answer', status: 200, body: '<html>Next.js 404 page</html>' });

    expect(await world.ensure(world.url('/a/median'))).toBeUndefined();

    expect(world.errorCodes()).toEqual(['connect_answer_unexpected']);
  });

  it('passes the route\'s own connect error on with its code', async () => {
    const world = await useKeeper();
    world.openRoute = async () => ({ kind: 'answer', status: 401, body: { error: { code: 'invalid_key', message: 'That key is not valid.' } } });

    expect(await world.ensure(world.url('/a/median'))).toBeUndefined();

    expect(world.errorCodes()).toEqual(['invalid_key']);
  });

  it('sync without an endpoint throws endpoint_not_connected (the caller connects, after the production guard)', async () => {
    const world = await useKeeper();
    await expect(world.keeper.sync(world.url('/a/median'))).rejects.toMatchObject({ code: 'endpoint_not_connected' });
  });
});

describe('the endpoint keeper (a new tunnel URL for a project that has an endpoint)', () => {
  it('changes the remembered endpoint to the new URL: same id, no second endpoint', async () => {
    const world = await useKeeper();
    const first = await world.ensure(world.url('/a/median'));
    world.events.length = 0;

    const second = await world.ensure(world.url('/b/median'));

    expect(second).toMatchObject({ id: first?.id, url: world.url('/b/median'), status: 'synced' });
    expect(world.endpointActions()).toEqual(['changed', 'synced']);
    expect((await world.median.client.listEndpoints()).map((e) => e.url)).toEqual([world.url('/b/median')]);
  });

  it('adopts an endpoint at a URL of its history whose id it had lost, and syncs it', async () => {
    const world = await useKeeper({ memory: { tunnelUrls: [] } });
    const existing = await world.median.client.waitForSync((await world.median.client.connect(world.url('/a/median'))).id, { timeoutMs: 2_000 });
    world.memory.tunnelUrls = [world.url('/a/median')];

    const endpoint = await world.ensure(world.url('/a/median'));

    expect(endpoint).toMatchObject({ id: existing.id, status: 'synced' });
    expect(world.endpointActions()).toEqual(['adopted', 'synced']);
    expect(world.memory.endpointId).toBe(existing.id);
  });

  it('does not take over an endpoint at its URL that the data dir never connected: endpoint_not_ours', async () => {
    const world = await useKeeper();
    const existing = await world.median.client.waitForSync((await world.median.client.connect(world.url('/a/median'))).id, { timeoutMs: 2_000 });

    expect(await world.ensure(world.url('/a/median'))).toBeUndefined();

    expect(world.errorCodes()).toEqual(['endpoint_not_ours']);
    expect(world.endpointActions()).toEqual([]);
    expect(world.memory.endpointId).toBeUndefined();
    expect((await world.median.client.listEndpoints()).map((e) => e.id)).toEqual([existing.id]);
  });

  it('removes this project\'s own old endpoint whose tools clash, then syncs', async () => {
    const world = await useKeeper();
    const old = await world.ensure(world.url('/a/median'));
    // Forget the id, so no Change endpoint: the new URL gets an endpoint of its own, whose tools clash
    // with the old one's. The old URL stays in the data dir's list of this project's URLs.
    world.memory = { tunnelUrls: [world.url('/a/median')] };
    world.events.length = 0;

    const endpoint = await world.ensure(world.url('/b/median'));

    expect(endpoint).toMatchObject({ url: world.url('/b/median'), status: 'synced' });
    expect(endpoint?.id).not.toBe(old?.id);
    // The clash is healed, not reported: the old endpoint goes, the new one syncs.
    expect(world.endpointActions()).toEqual(['connected', 'removed', 'synced']);
    expect(world.events.find((e) => e.event === 'endpoint' && e.action === 'removed')).toMatchObject({ id: old?.id, otherOwner: 'this-project' });
    expect((await world.median.client.listEndpoints()).map((e) => e.url)).toEqual([world.url('/b/median')]);
  });

  it('never removes an endpoint it cannot prove is this project\'s: it reports the clash with advice', async () => {
    const world = await useKeeper();
    // A teammate's endpoint serving the same tools.
    const theirs = await world.median.client.waitForSync((await world.median.client.connect(world.url('/c/median'))).id, { timeoutMs: 2_000 });

    const endpoint = await world.ensure(world.url('/a/median'));

    expect(endpoint?.status).toBe('failed');
    expect(world.endpointActions()).toEqual(['connected', 'sync-failed', 'clash']);
    const clash = world.events.find((e) => e.event === 'endpoint' && e.action === 'clash');
    expect(clash).toMatchObject({ otherUrl: theirs.url, fix: expect.any(String) });
    expect((await world.median.client.listEndpoints()).map((e) => e.id)).toContain(theirs.id);
  });

  it('with auto-fix off, leaves its own clashing endpoint alone too', async () => {
    const world = await useKeeper({ autoFix: false });
    await world.ensure(world.url('/a/median'));
    world.events.length = 0;

    await world.ensure(world.url('/b/median'));

    // No Change endpoint (auto-fix off): a second endpoint, whose clash is reported, not healed.
    expect(world.endpointActions()).toEqual(['connected', 'sync-failed', 'clash']);
    expect(await world.median.client.listEndpoints()).toHaveLength(2);
  });
});

/** Median API clients of the emulator's keys that log each request they send (`GET /v1/tool-endpoints`). */
function loggingClients(median: TestEmulator): { sent: string[]; client: (key: string) => MedianApiClient } {
  const sent: string[] = [];
  const logging: typeof fetch = (input, init) => {
    sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  return { sent, client: (key) => createMedianApiClient({ baseUrl: median.emulator.url, key, timeoutMs: 5_000, fetch: logging }) };
}

const LIST = 'GET /v1/tool-endpoints';

describe("the endpoint keeper decides on the production guard's fresh list", () => {
  /** A keeper whose Median requests are logged, and whose route notes how many list reads came before it was opened (ensure's decision). */
  async function useLoggingKeeper(options: { clock?: ManualClock } = {}) {
    let clients!: ReturnType<typeof loggingClients>;
    let current!: MedianApiClient;
    const world = await useKeeper({
      ...options,
      api: (median) => {
        clients = loggingClients(median);
        current = clients.client(median.emulator.key);
        return () => current;
      },
    });
    let listsBeforeOpen: number | undefined;
    const connect = world.openRoute;
    world.openRoute = () => {
      listsBeforeOpen ??= clients.sent.filter((request) => request === LIST).length;
      return connect();
    };
    return { world, sent: () => clients.sent, listsBeforeOpen: () => listsBeforeOpen, useNewClient: () => (current = clients.client(world.median.emulator.key)) };
  }

  it('ensure right after the guard reads no list of its own: one read for both', async () => {
    const { world, listsBeforeOpen } = await useLoggingKeeper();
    const url = world.url('/a/median');

    expect(await world.keeper.productionGuard(url)).toMatchObject({ kind: 'proceed' });
    const endpoint = await world.ensure(url);

    expect(endpoint).toMatchObject({ url, status: 'synced' });
    expect(world.endpointActions()).toEqual(['connected', 'synced']);
    expect(listsBeforeOpen()).toBe(1);
  });

  it(`reads the list again when the guard's is older than ${GUARD_LIST_REUSE_MS} ms (a dev server slow to start)`, async () => {
    const clock = createManualClock();
    const { world, listsBeforeOpen } = await useLoggingKeeper({ clock });
    const url = world.url('/a/median');

    await world.keeper.productionGuard(url);
    clock.advance(GUARD_LIST_REUSE_MS + 1);
    expect(await advanceShortWaitsUntil(clock, world.ensure(url))).toMatchObject({ url, status: 'synced' });

    expect(listsBeforeOpen()).toBe(2);
  });

  it('changes the endpoint on the guard\'s list alone, but reads its own for another key (a rotation swapped the client)', async () => {
    const { world, sent, useNewClient } = await useLoggingKeeper();
    await world.ensure(world.url('/a/median'));

    await world.keeper.productionGuard(world.url('/b/median'));
    let from = sent().length;
    expect(await world.ensure(world.url('/b/median'))).toMatchObject({ url: world.url('/b/median'), status: 'synced' });
    expect(sent()[from]).toMatch(/^PATCH \/v1\/tool-endpoints\//); // the change, decided on the guard's list

    await world.keeper.productionGuard(world.url('/c/median'));
    useNewClient();
    from = sent().length;
    expect(await world.ensure(world.url('/c/median'))).toMatchObject({ url: world.url('/c/median'), status: 'synced' });
    expect(sent().slice(from, from + 2)).toEqual([LIST, expect.stringMatching(/^PATCH /)]);
  });

  it('uses a guard\'s list once: a second ensure reads its own', async () => {
    const { world, sent } = await useLoggingKeeper();
    await world.ensure(world.url('/a/median'));
    await world.keeper.productionGuard(world.url('/b/median'));
    await world.ensure(world.url('/b/median'));

    const from = sent().length;
    expect(await world.ensure(world.url('/c/median'))).toMatchObject({ url: world.url('/c/median'), status: 'synced' });
    expect(sent()[from]).toBe(LIST);
  });
});
