import { describe, expect, it } from 'vitest';
import { createEndpointKeeper, DEFAULT_RETRY_POLICY } from '../../../src/endpoints/index.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { SYNC_MESSAGES } from '../../../src/median/messages.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { useRecompilingRoute } from '../../helpers/fake-recompiling-route.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';

/**
 * A sync right after median-dev (re)started or reloaded the dev server, against
 * the real emulator (its signed GET of the manifest is a real request) and a
 * real route that answers as `next dev` does while it recompiles. The keeper's
 * pauses run on a manual clock; the emulator and the route on real sockets.
 */
async function useStartingWorld(options: { isStartedByUs?: boolean } = {}) {
  const median = await useEmulator();
  const route = await useRecompilingRoute();
  const clock = createManualClock();
  const events: NewDaemonEvent[] = [];
  let reloadedAt: number | undefined;
  let memory = {};
  const keeper = createEndpointKeeper({
    api: () => median.client,
    readMemory: async () => ({ ...memory }),
    remember: async (patch) => void (memory = { ...memory, ...patch, tunnelUrls: [patch.toolsUrl] }),
    // The median() route's connect: it asks Median for an endpoint at its MEDIAN_TOOLS_URL.
    openRoute: async () => {
      await median.client.connect(route.url('/a/median'));
      return { kind: 'answer', status: 200, body: { connected: true } };
    },
    autoFix: true,
    emit: (event) => events.push(event),
    syncTimeoutMs: 2_000,
    routeUrl: route.url('/api/median'),
    clock,
    ...(options.isStartedByUs === false ? {} : { devServerStartingSince: () => reloadedAt }),
  });
  return {
    median,
    route,
    clock,
    events,
    /** The endpoint at A, synced: the run before the new tunnel URL. */
    async connectFirst() {
      expect(await keeper.ensure(route.url('/a/median'))).toMatchObject({ status: 'synced' });
      events.length = 0;
      route.answers.length = 0;
    },
    /** median-dev wrote URL B and the dev server reloaded its env; `failures` requests find it recompiling. */
    reload(failures: number) {
      reloadedAt = clock.now();
      route.reload(failures);
    },
    ensureB: () => advanceShortWaitsUntil(clock, keeper.ensure(route.url('/b/median'))),
    actions: () => events.flatMap((e) => (e.event === 'endpoint' ? [e.action] : [])),
    endpointEvent: (action: string) => events.find((e) => e.event === 'endpoint' && e.action === action) as Extract<NewDaemonEvent, { event: 'endpoint' }> | undefined,
  };
}

describe('a sync while the dev server is still starting (after median-dev reloaded it)', () => {
  it('syncs again after its transient 500s: synced, with a waiting state and no failure', async () => {
    const world = await useStartingWorld();
    await world.connectFirst();
    world.reload(2);

    const endpoint = await world.ensureB();

    expect(endpoint).toMatchObject({ url: world.route.url('/b/median'), status: 'synced', error: null });
    expect(world.actions()).toEqual(['changed', 'waiting', 'synced']);
    expect(world.endpointEvent('waiting')?.error).toBe(SYNC_MESSAGES.answeredStatus(500));
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(world.route.answers).toEqual([500, 500, 200]);
  });

  it('a dev server still answering 500 when the window ends: the existing sync failure, with its fix', async () => {
    const world = await useStartingWorld();
    await world.connectFirst();
    const startedAt = world.clock.now();
    world.reload(Number.POSITIVE_INFINITY);

    const endpoint = await world.ensureB();

    expect(endpoint).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.answeredStatus(500) });
    expect(world.actions()).toEqual(['changed', 'waiting', 'sync-failed']);
    expect(world.endpointEvent('sync-failed')).toMatchObject({ error: SYNC_MESSAGES.answeredStatus(500), fix: expect.stringMatching(/^It still failed 5 s after the dev server .*MEDIAN_KEY/) });
    // Bounded: the syncs stopped at the window's end (0, 0.5, 1.5, 3.5 and 5 s on the clock), well inside Median's burst of 10.
    const { windowMs } = DEFAULT_RETRY_POLICY.starting;
    expect(world.clock.now() - startedAt).toBe(windowMs);
    expect(world.route.answers).toEqual([500, 500, 500, 500, 500]);
  });

  it.each([
    ['a 404', { status: 404, contentType: 'text/html', body: '<h1>404 This page could not be found</h1>' }, SYNC_MESSAGES.answeredStatus(404)],
    ['a 200 that is not JSON', { status: 200, contentType: 'text/html', body: '<!DOCTYPE html><html>…' }, SYNC_MESSAGES.notJson],
  ])('%s fails at once, even right after a reload', async (_name, compiled, message) => {
    const world = await useStartingWorld();
    await world.connectFirst();
    world.reload(0);
    world.route.compiled = compiled;
    const startedAt = world.clock.now();

    const endpoint = await world.ensureB();

    expect(endpoint).toMatchObject({ status: 'failed', error: message });
    expect(world.actions()).toEqual(['changed', 'sync-failed']);
    expect(world.route.answers).toHaveLength(1);
    expect(world.clock.now()).toBe(startedAt);
  });

  it('a 500 from a dev server median-dev did not start is final at once', async () => {
    const world = await useStartingWorld({ isStartedByUs: false });
    await world.connectFirst();
    world.reload(Number.POSITIVE_INFINITY);

    const endpoint = await world.ensureB();

    expect(endpoint).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.answeredStatus(500) });
    expect(world.actions()).toEqual(['changed', 'sync-failed']);
    expect(world.route.answers).toEqual([500]);
  });
});
