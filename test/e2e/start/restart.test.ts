import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('median-dev start: a second start in the same project', () => {
  it('keeps the endpoint id and a switched-off tool when a restart gets another hostname', async () => {
    const world = await useE2eWorld();
    const firstRun = world.start();
    const first = await firstRun.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    await world.api.setToolEnabled(first.id as string, 'chargeCard', false);
    expect(await firstRun.stop('SIGINT')).toBe(0);

    // The name is taken by someone else while median-dev is stopped: after asking again
    // for a while (in case the server still held it for us), the next start takes another one.
    const name = new URL(first.url as string).hostname.split('.')[0]!;
    world.tunnelServer.holdName(name);
    const secondRun = world.start();
    const open = await secondRun.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'open' }));
    expect(open).toMatchObject({ isHostnameChange: true, requestedSubdomain: name });
    const synced = await waitForEventAfter(secondRun, 0, 'endpoint', { action: 'synced' });
    expect(synced).toMatchObject({ id: first.id, url: `${open.url as string}/api/median` });
    expect(eventsOf(secondRun, 'endpoint', { action: 'changed' })).toEqual([expect.objectContaining({ id: first.id })]);
    expect(eventsOf(secondRun, 'endpoint', { action: 'connected' })).toEqual([]);

    const endpoints = await world.api.listEndpoints();
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ id: first.id, url: synced.url, status: 'synced' });
    expect(endpoints[0]!.tools.find((t) => t.name === 'chargeCard')).toEqual({ name: 'chargeCard', enabled: false });
    expect(endpoints[0]!.tools.filter((t) => !t.enabled)).toHaveLength(1);
  });

  it('under the same hostname: announces the tools URL, keeps the child and syncs the same endpoint', async () => {
    const world = await useE2eWorld();
    const firstRun = world.start();
    const first = await firstRun.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(await firstRun.stop('SIGINT')).toBe(0);
    const [before] = await world.api.listEndpoints();
    // The tunnel server holds a name for a moment after its sockets closed (its offline grace);
    // asked for before that, the name is taken and the start gets another one.
    await vi.waitFor(() => expect(world.tunnelServer.clients()).toEqual([]), { timeout: 5_000 });

    const secondRun = world.start();
    expect(await secondRun.waitForEvent((e) => isEvent(e, 'tools-url'))).toMatchObject({ url: first.url });
    const synced = await secondRun.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(synced).toMatchObject({ id: first.id, url: first.url });
    // The child started at once with the remembered URL and did not need a restart.
    expect(childPids(secondRun)).toHaveLength(1);
    expect(eventsOf(secondRun, 'endpoint').map((e) => e.action)).toEqual(['synced']);
    const [after] = await world.api.listEndpoints();
    expect(after).toMatchObject({ id: first.id, url: first.url, status: 'synced' });
    expect(Date.parse(after!.syncedAt!)).toBeGreaterThan(Date.parse(before!.syncedAt!));
    expect(await readFile(world.envFile, 'utf8')).toBe(`MEDIAN_KEY=${world.emulator.key}\nMEDIAN_TOOLS_URL=${first.url as string}\n`);
    expect(eventsOf(secondRun, 'error')).toEqual([]);
  });
});
