import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_SERVER_FIRST_LIMIT_MS } from '../../../src/daemon/dev-server-first.js';
import { eventsOf, isEvent, useE2eWorld, type CliEvent } from '../../helpers/e2e-world.js';

const atOf = (event: CliEvent | undefined): number => Date.parse(String(event?.at));

describe('median-dev start: the order of the start', () => {
  it('starts the control channel before its first line, the tunnel and the dev server before the inspector, and --json has every event', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    // Said once the start finished, which on a busy machine can come after the sync.
    await cli.waitForEvent((e) => isEvent(e, 'inspector'), 10_000);

    // What happened before the daemon finished starting reached --json too, in order.
    const names = cli.events().map((e) => `${String(e.event)}${typeof e.state === 'string' ? `:${e.state}` : ''}`);
    const order = ['proxy', 'tunnel:connecting', 'tunnel:open', 'tools-url', 'child:starting', 'child:running'].map((name) => names.indexOf(name));
    expect(order.every((at) => at >= 0), names.join(' ')).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(eventsOf(cli, 'inspector')).toHaveLength(1);
    expect(eventsOf(cli, 'proxy')).toHaveLength(1);
    // Each with the time it happened: the proxy's is not the time it was printed, after the tunnel's.
    expect(atOf(eventsOf(cli, 'proxy')[0])).toBeLessThanOrEqual(atOf(eventsOf(cli, 'tunnel', { state: 'connecting' })[0]));
    expect(eventsOf(cli, 'tunnel', { state: 'connecting' })).toHaveLength(1);

    // The control channel (control.json's startedAt) started before the first line went out: a script that read
    // where the proxy listens finds the daemon. The inspector started after the tunnel began registering, and once
    // the dev server ran with the tunnel's URL, unless that took longer than the daemon holds its other parts back for.
    const control = JSON.parse(await readFile(join(world.dataDir, 'control.json'), 'utf8')) as { startedAt: string };
    const running = cli.events().find((e) => isEvent(e, 'child', { state: 'running' }));
    const connecting = eventsOf(cli, 'tunnel', { state: 'connecting' })[0];
    const inspector = eventsOf(cli, 'inspector')[0];
    expect(Date.parse(control.startedAt)).toBeLessThanOrEqual(atOf(eventsOf(cli, 'proxy')[0]));
    expect(atOf(inspector)).toBeGreaterThanOrEqual(atOf(connecting));
    if (atOf(running) - atOf(connecting) < DEV_SERVER_FIRST_LIMIT_MS) expect(atOf(inspector)).toBeGreaterThanOrEqual(atOf(running));
    expect(atOf(eventsOf(cli, 'tools-url')[0])).toBeLessThanOrEqual(atOf(running));
    expect(eventsOf(cli, 'error')).toEqual([]);
  });
});
