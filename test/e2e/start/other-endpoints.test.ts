import { describe, expect, it } from 'vitest';
import { eventsOf, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';
import { manifestOf, useManifestServer } from '../../helpers/use-emulator.js';

describe('median-dev start: endpoints that are not this project’s', () => {
  it('leaves another project’s local endpoint with other tools untouched (a local address is a dev endpoint, so the production guard does not stop)', async () => {
    const world = await useE2eWorld();
    const production = await useManifestServer();
    production.serve('/api/median', { body: manifestOf('shipParcel', 'trackParcel') });
    const connected = await world.api.connect(production.url('/api/median'));
    const before = await world.api.waitForSync(connected.id, { timeoutMs: 5_000 });
    expect(before.status).toBe('synced');

    const cli = world.start();
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(synced.id).not.toBe(before.id);

    const endpoints = await world.api.listEndpoints();
    expect(endpoints).toHaveLength(2);
    expect(endpoints.find((e) => e.id === before.id)).toEqual(before);
    expect(endpoints.find((e) => e.id === synced.id)).toMatchObject({ url: synced.url, status: 'synced' });
    expect(cli.events().filter((e) => e.event === 'endpoint' && e.id === before.id)).toEqual([]);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });

  it('reports a clash with a foreign endpoint serving the same tools, with the prune command, and does not remove it', async () => {
    const world = await useE2eWorld();
    const foreign = await useManifestServer();
    foreign.serve('/api/median', { body: manifestOf('orderStatus', 'lookupCustomer') });
    const connected = await world.api.connect(foreign.url('/api/median'));
    const before = await world.api.waitForSync(connected.id, { timeoutMs: 5_000 });
    expect(before.status).toBe('synced');

    const cli = world.start();
    const clash = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }));
    expect(clash.fix).toEqual(expect.stringContaining('median-dev endpoints prune'));
    expect(clash.error).toEqual(expect.stringContaining(foreign.url('/api/median')));
    expect(eventsOf(cli, 'endpoint', { action: 'sync-failed', id: clash.id })).toHaveLength(1);
    expect(eventsOf(cli, 'endpoint', { action: 'removed' })).toEqual([]);

    const endpoints = await world.api.listEndpoints();
    expect(endpoints).toHaveLength(2);
    expect(endpoints.find((e) => e.id === before.id)).toEqual(before);
    expect(endpoints.find((e) => e.id === clash.id)).toMatchObject({ status: 'failed' });
  });
});
