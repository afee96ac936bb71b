import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { requestVia } from '../../helpers/use-tunnel-server.js';
import { EXAMPLE_ROUTE, freePort, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

/** `start`'s argv without `--target <url>`. */
function withoutTarget(args: string[]): string[] {
  const at = args.indexOf('--target');
  return at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
}

/** The example route, quiet: it listens on PORT and prints nothing (so only the OS tells where). */
const SILENT_ROUTE = `
  const log = console.log;
  console.log = (...args) => { if (!String(args[0]).includes('listening')) log(...args); };
  import(${JSON.stringify(EXAMPLE_ROUTE)});
`;

/** The example route, 60 s late: a dev server still compiling. */
const LATE_ROUTE = `setTimeout(() => import(${JSON.stringify(EXAMPLE_ROUTE)}), 60_000);`;

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;

describe('median-dev start without --target: the target from the dev server', () => {
  it('proxies to the URL the dev server announces, says how once, syncs, and the data dir remembers it', async () => {
    const world = await useE2eWorld();
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url };
    const cli = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, EXAMPLE_ROUTE], { cwd: world.projectDir, env });

    await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);
    const said = cli.events().filter((e) => isEvent(e, 'target') && e.message !== undefined && e.state !== 'finding');
    expect(said.map((e) => [e.how, e.url])).toEqual([['announced', `http://127.0.0.1:${port}`]]);
    expect(cli.events().filter((e) => isEvent(e, 'error'))).toEqual([]);
    expect(await readJson(join(world.dataDir, 'state.json'))).toMatchObject({ target: `http://127.0.0.1:${port}`, targetFrom: 'announced' });
    // A second terminal's commands use it: the running daemon's settings say it.
    expect(await readJson(join(world.dataDir, 'control.json'))).toMatchObject({ settings: { target: `http://127.0.0.1:${port}` } });
    expect(await cli.stop('SIGINT')).toBe(0);

    // Remembered like the other defaults, and found again: the next start's dev server on another port is followed.
    const moved = await freePort();
    const again = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, EXAMPLE_ROUTE], { cwd: world.projectDir, env: { ...env, PORT: String(moved) } });
    await waitForEventAfter(again, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(again.events().filter((e) => isEvent(e, 'target', { how: 'announced' }) && e.message !== undefined).map((e) => e.url)).toEqual([`http://127.0.0.1:${moved}`]);
    expect(again.events().filter((e) => isEvent(e, 'error'))).toEqual([]);
    expect(await again.stop('SIGINT')).toBe(0);
  }, 120_000);

  it('proxies to the port the dev server opens when it prints no address', async () => {
    const world = await useE2eWorld();
    const port = await freePort();
    const script = join(world.projectDir, 'silent-route.mjs');
    await writeFile(script, SILENT_ROUTE);
    const env = { PORT: String(port), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url };
    const cli = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, script], { cwd: world.projectDir, env });

    await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(cli.events().filter((e) => isEvent(e, 'target') && e.message !== undefined && e.state !== 'finding').map((e) => [e.how, e.url])).toEqual([['listening', `http://127.0.0.1:${port}`]]);
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);

  it('an explicit --target wins over what the dev server announces', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);

    expect(cli.events().filter((e) => isEvent(e, 'target', { how: 'announced' }))).toEqual([]);
    // Said when the proxy sees the port listen, which may come just after the sync.
    const listening = await cli.waitForEvent((e) => isEvent(e, 'target', { state: 'listening' }), 10_000);
    expect(listening).toMatchObject({ how: 'flag', url: `http://127.0.0.1:${world.routePort}` });
    expect(await readJson(join(world.dataDir, 'state.json'))).toMatchObject({ target: `http://127.0.0.1:${world.routePort}`, targetFrom: 'flag' });
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);

  it('a call through the tunnel before the dev server is up gets 503 with Retry-After, recorded as such', async () => {
    const world = await useE2eWorld();
    const script = join(world.projectDir, 'late-route.mjs');
    await writeFile(script, LATE_ROUTE);
    const env = { PORT: String(await freePort()), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url };
    const cli = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, script], { cwd: world.projectDir, env });
    const open = await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'open' }), 30_000);
    await cli.waitForEvent((e) => isEvent(e, 'target', { state: 'finding' }), 30_000);

    const answer = await requestVia(world.tunnelServer, new URL(open.url as string).host, { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json' }, body: '{"tool":"orderStatus","toolCallId":"call_early","input":{}}' });

    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'dev_server_starting' } });
    await cli.waitForEvent((e) => isEvent(e, 'call', { toolCallId: 'call_early' }), 15_000);
    const listed = await runCliInProcess(['calls', '--json', '--data-dir', world.dataDir], { cwd: world.projectDir });
    const record = (JSON.parse(listed.stdout) as CallRecord[]).find((r) => r.toolCallId === 'call_early');
    expect(record).toMatchObject({ response: null, error: { code: 'dev_server_starting' }, verdict: { kind: 'not-answering' } });
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);
});
