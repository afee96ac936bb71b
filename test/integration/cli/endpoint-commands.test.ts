import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateProjectState } from '../../../src/config/index.js';
import type { ClassifiedEndpoint } from '../../../src/endpoints/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { SYNC_MESSAGES, createMedianApiClient } from '../../../src/median/index.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { createManualClock } from '../../helpers/manual-clock.js';

async function useDataDir(): Promise<string> {
  return useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-ep-')), (dir) => rm(dir, { recursive: true, force: true }));
}

/**
 * This project's current endpoint clashes with its own old tunnel URL (both
 * serve orderStatus), the situation the docs' "The tunnel URL changed" describes.
 */
async function useClashWorld() {
  const { emulator } = await useEmulator();
  // Every wait for a sync (the test's and the commands') polls on this clock; it moves only while the emulator is not syncing.
  const clock = createManualClock();
  const client = createMedianApiClient({ baseUrl: emulator.url, key: emulator.key, timeoutMs: 5_000, clock });
  const isSyncing = () => emulator.endpoints().some((e) => e.status === 'pending');
  const onClock = <T>(work: Promise<T>): Promise<T> => advanceShortWaitsUntil(clock, work, 1_000, () => !isSyncing());
  const routes = await useManifestServer();
  routes.serve('/old/api/median', { body: manifestOf('orderStatus') });
  routes.serve('/new/api/median', { body: manifestOf('orderStatus') });
  routes.serve('/prod/api/median', { body: manifestOf('refundOrder') });
  const oldUrl = routes.url('/old/api/median');
  const newUrl = routes.url('/new/api/median');
  const prod = await onClock(client.waitForSync((await client.connect(routes.url('/prod/api/median'))).id));
  const old = await onClock(client.waitForSync((await client.connect(oldUrl)).id));
  const current = await onClock(client.waitForSync((await client.connect(newUrl)).id));
  const dataDir = await useDataDir();
  await updateProjectState(dataDir, { endpointId: current.id, toolsUrl: newUrl, tunnelUrls: [oldUrl, newUrl], target: routes.origin, route: '/new/api/median' });
  const run = (args: string[], extra: { isInteractive?: boolean } = {}) =>
    onClock(runCliInProcess([...args, '--data-dir', dataDir, '--no-env-file', '--median-api', emulator.url], { env: { MEDIAN_KEY: emulator.key }, clock, ...extra }));
  return { emulator, client, routes, dataDir, run, prod, old, current, oldUrl, newUrl };
}

describe('endpoints, prune and sync against the emulator', () => {
  it('endpoints marks this project’s endpoint, its stale one and the clash', async () => {
    const world = await useClashWorld();
    expect(world.current.status).toBe('failed');
    const result = await world.run(['endpoints', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as ClassifiedEndpoint[];
    const byId = new Map(listed.map((e) => [e.id, e]));
    expect(byId.get(world.current.id)).toMatchObject({ isCurrent: true, isThisProject: true, isStale: false, status: 'failed' });
    expect(byId.get(world.old.id)).toMatchObject({ isCurrent: false, isThisProject: true, isStale: true, clashesWithCurrent: true });
    expect(byId.get(world.prod.id)).toMatchObject({ isThisProject: false, isStale: false, clashesWithCurrent: false });
    const table = await world.run(['endpoints']);
    expect(table.stdout).toContain('endpoints prune');
  });

  it('prune without --yes and without a terminal removes nothing and says how', async () => {
    const world = await useClashWorld();
    const result = await world.run(['endpoints', 'prune']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('confirmation_needed');
    expect((await world.client.listEndpoints()).map((e) => e.id)).toContain(world.old.id);
  });

  it('prune --yes removes the stale endpoint, leaves production alone, and the current one syncs', async () => {
    const world = await useClashWorld();
    const result = await world.run(['endpoints', 'prune', '--yes', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ removed: [world.old.id], kept: [], neverRemoved: [], resynced: 'synced' });
    const left = await world.client.listEndpoints();
    expect(left.map((e) => e.id).sort()).toEqual([world.current.id, world.prod.id].sort());
    expect(left.find((e) => e.id === world.current.id)?.status).toBe('synced');
  });

  it('prune --yes never removes a clashing endpoint it cannot prove is this project’s', async () => {
    const world = await useClashWorld();
    await updateProjectState(world.dataDir, { tunnelUrls: [world.newUrl] }); // the old URL is no longer provably ours
    const result = await world.run(['endpoints', 'prune', '--yes', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ removed: [], kept: [world.old.id] });
    expect((await world.client.listEndpoints()).map((e) => e.id)).toContain(world.old.id);
  });

  it('sync reports a failed sync with exit 1 and the docs’ message, then succeeds once the clash is gone', async () => {
    const world = await useClashWorld();
    const failed = await world.run(['sync', '--json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).error).toBe(
      `The tool name "orderStatus" already comes from ${world.oldUrl}. Tool names have to be unique across every endpoint.`,
    );
    const text = await world.run(['sync']);
    expect(text.stdout).toContain('→ Rename one, or remove the old endpoint (only if it is yours: `median-dev endpoints` shows whose it is).');
    await world.client.removeEndpoint(world.old.id);
    const synced = await world.run(['sync', '--json']);
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ id: world.current.id, status: 'synced' });
  });

  it('commands that need Median say where the key goes when it is missing', async () => {
    const dataDir = await useDataDir();
    const result = await runCliInProcess(['endpoints', '--data-dir', dataDir, '--no-env-file'], { env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing_key');
  });
});

describe('manifest', () => {
  it('says a good manifest would sync', async () => {
    const { emulator } = await useEmulator();
    const routes = await useManifestServer();
    routes.serve('/api/median', { body: manifestOf('orderStatus', 'refundOrder') });
    const dataDir = await useDataDir();
    const result = await runCliInProcess(['manifest', '--json', '--target', routes.origin, '--data-dir', dataDir, '--no-env-file'], { env: { MEDIAN_KEY: emulator.key } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ wouldSync: true, problems: [] });
    expect(routes.requests[0]?.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it.each([
    [{ version: 2, tools: [] }, 'The manifest version is 2, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.'],
    [
      { version: 1, tools: [{ name: 'x', description: 'd'.repeat(501), risk: 'low', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }] },
      'tools[0].description is over 500 characters.',
    ],
    [
      { version: 1, tools: [{ name: 'x', description: 'd', risk: 'low', inputSchema: { type: 'object', properties: {}, additionalProperties: true } }] },
      'tools[0].inputSchema.additionalProperties has to be false.',
    ],
  ])('reports a broken rule with the docs’ message (%#)', async (manifest, message) => {
    const routes = await useManifestServer();
    routes.serve('/api/median', { body: manifest });
    const dataDir = await useDataDir();
    const result = await runCliInProcess(['manifest', '--json', '--target', routes.origin, '--data-dir', dataDir, '--no-env-file'], {
      env: { MEDIAN_KEY: 'median_key_' + 'M'.repeat(32) },
    });
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout);
    expect(body.wouldSync).toBe(false);
    expect(body.problems.map((p: { message: string }) => p.message)).toContain(message);
  });

  it.each([
    // The real example route holding another key: 401 invalid_signature.
    ['another key', 'median_key_' + 'O'.repeat(32), SYNC_MESSAGES.refusedSignature],
    // The real example route without MEDIAN_KEY: 500 missing_secret.
    ['no key', undefined, 'The endpoint answered 500.'],
  ])('an error body (%s) is judged as Median’s sync judges it, not as a manifest', async (_name, routeKey, message) => {
    const route = useTeardown(await startToolRouteServer({ port: 0, key: routeKey, tools: createDemoTools({ msPerSecond: 100 }) }), (r) => r.close());
    const dataDir = await useDataDir();
    const result = await runCliInProcess(['manifest', '--json', '--target', new URL(route.url).origin, '--data-dir', dataDir, '--no-env-file'], {
      env: { MEDIAN_KEY: 'median_key_' + 'M'.repeat(32) },
    });
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as { problems: Array<{ message: string }> }).problems.map((p) => p.message)).toEqual([message]);
  });

  it('a route that is down is reported, not thrown', async () => {
    const dataDir = await useDataDir();
    const result = await runCliInProcess(['manifest', '--target', 'http://127.0.0.1:9', '--data-dir', dataDir, '--no-env-file'], {
      env: { MEDIAN_KEY: 'median_key_' + 'M'.repeat(32) },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('The endpoint did not answer. Check the URL and that your server is up.');
  });
});
