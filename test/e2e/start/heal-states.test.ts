import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isRouteAnswering } from '../../../src/endpoints/index.js';
import { EXAMPLE_ROUTE, childPids, eventsOf, isEvent, useE2eWorld, type CliEvent, type E2eWorld } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';

/** Each event of the run after `mark` as `name state/action url` (heal, tools-url, child, endpoint). */
function trail(events: CliEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.event === 'heal') return [`heal ${String(e.state)} ${String(e.url)}`];
    if (e.event === 'tools-url') return [`tools-url ${String(e.url)}`];
    if (e.event === 'child' && e.state === 'running') return ['child running'];
    if (e.event === 'endpoint') return [`endpoint ${String(e.action)} ${String(e.url)}`];
    return [];
  });
}

/** Starts a tunnel server where the world's one was (same port and domain): the server comes up. */
async function bringTunnelServerUp(world: E2eWorld, port: number, domain: string): Promise<void> {
  world.tunnelServer = await useTunnelServer({ port, domain });
}

describe('median-dev start --json: the in-between states of a heal', () => {
  it('a hostname change: changing, connecting, syncing, done, each naming the new URL, in the URL order', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const first = await cli.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }));
    expect(first).toMatchObject({ synced: true });
    const oldUrl = first.url as string;
    const name = new URL(oldUrl).hostname.split('.')[0]!;

    const mark = cli.events().length;
    world.tunnelServer.refuseName(name);
    world.tunnelServer.dropClient(name, { forget: true });
    const done = await cli.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }) && e.url !== oldUrl, 20_000);

    const newUrl = done.url as string;
    expect(newUrl).not.toBe(oldUrl);
    expect(done).toMatchObject({ synced: true, durationMs: expect.any(Number) });
    expect(trail(cli.events().slice(mark))).toEqual([
      `heal changing ${newUrl}`,
      `tools-url ${newUrl}`,
      'child running',
      `heal connecting ${newUrl}`,
      `heal syncing ${newUrl}`,
      `endpoint changed ${newUrl}`,
      `endpoint synced ${newUrl}`,
      `heal done ${newUrl}`,
    ]);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });
});

describe('median-dev start --json: the dev server answers only after the tunnel opened', () => {
  it('the heal ends unsynced, then resumes once the route answers: syncing and done synced, timed from its first state', async () => {
    const world = await useE2eWorld();
    // The user runs the dev server by hand, and has not started it yet.
    // (The heal gives the route 2 s to answer instead of 60 s.)
    const cli = world.start({ childCommand: [], env: { MEDIAN_DEV_ROUTE_READY_TIMEOUT_MS: '2000' } });
    const unsynced = await cli.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }));
    expect(unsynced).toMatchObject({ synced: false });
    const toolsUrl = unsynced.url as string;
    const mark = cli.events().length;

    const route = spawn(process.execPath, [EXAMPLE_ROUTE], {
      env: { PATH: process.env.PATH, PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_KEY: world.emulator.key, MEDIAN_TOOLS_URL: toolsUrl, MEDIAN_API_URL: world.emulator.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    useTeardown(route, (r) => void r.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      route.stdout!.on('data', (chunk) => String(chunk).includes('listening') && resolve());
      route.once('exit', (code) => reject(new Error(`the tools route exited (${code})`)));
    });
    const upAt = Date.now();

    const done = await cli.waitForEvent((e) => isEvent(e, 'heal', { state: 'done', resumed: true }), 30_000);
    expect(done).toMatchObject({ url: toolsUrl, synced: true });
    const firstState = cli.events().find((e) => isEvent(e, 'heal'))!;
    // The duration runs from the heal's first state, through the time the dev server was away.
    expect(done.durationMs as number).toBeGreaterThanOrEqual(upAt - Date.parse(firstState.at as string));
    // It says when the heal began: as its first state was said.
    const sinceFirst = Date.parse(firstState.at as string) - Date.parse(done.startedAt as string);
    expect(sinceFirst).toBeGreaterThanOrEqual(0);
    expect(sinceFirst).toBeLessThan(1_000);
    const after = cli.events().slice(mark);
    expect(trail(after).filter((line) => line.startsWith('heal'))).toEqual([`heal syncing ${toolsUrl}`, `heal done ${toolsUrl}`]);
    expect(after.filter((e) => isEvent(e, 'heal')).every((e) => e.resumed === true)).toBe(true);
    expect(trail(after)).toContain(`endpoint synced ${toolsUrl}`);
    expect(await world.api.listEndpoints()).toEqual([expect.objectContaining({ url: toolsUrl, status: 'synced' })]);
  });
});

/**
 * The tunnel server comes up at a moment of the test's choosing: the tries to
 * open are capped at 500 ms apart (a hidden knob), so the open follows within
 * half a second instead of up to the 4 s backoff step it happens to fall in.
 * The backoff itself is test/e2e/faults/tunnel-faults.test.ts's and
 * test/integration/daemon/tunnel-keeper.test.ts's.
 */
const QUICK_TRIES = { MEDIAN_DEV_TUNNEL_BACKOFF_MAX_MS: '500' };

describe('median-dev start: no tunnel, the dev server anyway', () => {
  it('the tunnel server is down at start: the child runs and answers; once the server is up, the URL is written and the endpoint synced', async () => {
    const world = await useE2eWorld();
    const { port, domain } = world.tunnelServer;
    await world.tunnelServer.close();
    const cli = world.start({ env: QUICK_TRIES });

    const localOnly = await cli.waitForEvent((e) => isEvent(e, 'local-only'));
    expect(localOnly).toMatchObject({ toolsUrl: null });
    await cli.waitForEvent((e) => isEvent(e, 'child', { state: 'running' }));
    const routeUrl = `http://127.0.0.1:${world.routePort}/api/median`;
    await expect.poll(() => isRouteAnswering(routeUrl, { timeoutMs: 1_000 }), { timeout: 10_000 }).toBe(true);
    expect(eventsOf(cli, 'tools-url')).toEqual([]);
    expect(eventsOf(cli, 'local-only')).toHaveLength(1);

    await bringTunnelServerUp(world, port, domain);
    const done = await cli.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }), 30_000);
    expect(done).toMatchObject({ synced: true });
    const toolsUrl = done.url as string;
    expect(await readFile(world.envFile, 'utf8')).toBe(`MEDIAN_KEY=${world.emulator.key}\nMEDIAN_TOOLS_URL=${toolsUrl}\n`);
    // The URL order once the tunnel opened: the env file, the dev server (it had no URL: restarted once, with it), its route, the endpoint.
    const opened = cli.events().findIndex((e) => isEvent(e, 'tunnel', { state: 'open' }));
    expect(trail(cli.events().slice(opened))).toEqual([
      `heal changing ${toolsUrl}`,
      `tools-url ${toolsUrl}`,
      'child running',
      `heal connecting ${toolsUrl}`,
      `heal syncing ${toolsUrl}`,
      `endpoint connected ${toolsUrl}`,
      `endpoint synced ${toolsUrl}`,
      `heal done ${toolsUrl}`,
    ]);
    expect(childPids(cli)).toHaveLength(2);
    expect(eventsOf(cli, 'local-only')).toHaveLength(1);
    expect(await world.api.listEndpoints()).toEqual([expect.objectContaining({ url: toolsUrl, status: 'synced' })]);
  });

  it('the env file already holds the URL the tunnel then opens with: the dev server is not restarted', async () => {
    const world = await useE2eWorld();
    const { port, domain } = world.tunnelServer;
    const toolsUrl = `${world.tunnelServer.publicUrlFor('steady-heron')}/api/median`;
    await writeFile(world.envFile, `MEDIAN_KEY=${world.emulator.key}\nMEDIAN_TOOLS_URL=${toolsUrl}\n`);
    await world.tunnelServer.close();
    const cli = world.start({ args: ['--subdomain', 'steady-heron'], env: QUICK_TRIES });

    expect(await cli.waitForEvent((e) => isEvent(e, 'local-only'))).toMatchObject({ toolsUrl });
    await cli.waitForEvent((e) => isEvent(e, 'child', { state: 'running' }));
    await bringTunnelServerUp(world, port, domain);
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced', url: toolsUrl }), 30_000);

    expect(childPids(cli)).toHaveLength(1);
    expect(eventsOf(cli, 'child', { state: 'starting' })).toHaveLength(1);
  });
});
