import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, eventsOf, useE2eWorld } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** `start`'s argv without `--port 0`: the default port applies. */
function withoutPort(args: string[]): string[] {
  const at = args.indexOf('--port');
  return at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
}

/** Holds 127.0.0.1:<port> for the test (or finds it held already, which is as good). */
async function holdPort(port: number): Promise<void> {
  const server: Server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) useTeardown(server, (s) => new Promise((resolve) => s.close(resolve)));
}

describe('median-dev start: what a project has and expects', () => {
  it('reads MEDIAN_KEY from .env as Next.js does, says so once, and still writes MEDIAN_TOOLS_URL into .env.local only', async () => {
    const world = await useE2eWorld({ envFileText: null });
    const dotEnv = `MEDIAN_KEY=${world.emulator.key}\nDATABASE_URL=postgres://localhost/shop\n`;
    await writeFile(join(world.projectDir, '.env'), dotEnv);
    const cli = world.start({ envFileFlag: false });

    const synced = await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    const keyLines = eventsOf(cli, 'log').filter((e) => String(e.message).startsWith('MEDIAN_KEY'));
    expect(keyLines).toEqual([expect.objectContaining({ level: 'info', message: `MEDIAN_KEY …${world.emulator.key.slice(-4)} from .env` })]);
    expect(await readFile(world.envFile, 'utf8')).toBe(`MEDIAN_TOOLS_URL=${synced.url as string}\n`);
    expect(await readFile(join(world.projectDir, '.env'), 'utf8')).toBe(dotEnv);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });

  it('--env <path> names the env file without tripping Node’s own --env-file check on a missing file', async () => {
    const world = await useE2eWorld({ envFileText: null });
    const devEnv = join(world.projectDir, 'dev.env');
    const cli = world.start({ envFileFlag: false, args: ['--env', devEnv], env: { MEDIAN_KEY: world.emulator.key } });
    expect(await cli.waitForEvent((e) => e.event === 'tools-url')).toMatchObject({ envFile: devEnv });
    await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    expect(existsSync(devEnv)).toBe(true);
  });

  it('--median-api reaches the dev server as MEDIAN_API_URL, so its connect goes to that API', async () => {
    const world = await useE2eWorld();
    // Nothing but the flag names the emulator: the CLI's own environment has no MEDIAN_API_URL.
    const cli = world.start({ env: { MEDIAN_API_URL: undefined } });
    const connected = await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'connected');
    await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    expect((await world.api.listEndpoints()).map((e) => e.id)).toEqual([connected.id]);
    expect(eventsOf(cli, 'call', { kind: 'connect' })).toEqual([expect.objectContaining({ status: 200 })]);
  });

  it('without --port, a taken 4141 is no reason to stop: the proxy takes a free port and says so', async () => {
    await holdPort(4141);
    const world = await useE2eWorld();
    const args = withoutPort(world.startArgs());
    const cli = spawnCli([...args, '--', process.execPath, EXAMPLE_ROUTE], {
      cwd: world.projectDir,
      env: { PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url },
    });
    const proxy = await cli.waitForEvent((e) => e.event === 'proxy');
    expect(new URL(proxy.url as string).port).not.toBe('4141');
    expect(eventsOf(cli, 'log', { level: 'warn' }).map((e) => e.message)).toEqual([expect.stringContaining('Port 4141 is in use')]);
    await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
  });

  it('an explicit --port that is taken stays an error (proxy_port_in_use, exit 1)', async () => {
    await holdPort(4141);
    const world = await useE2eWorld();
    const cli = spawnCli([...withoutPort(world.startArgs()), '--port', '4141'], { cwd: world.projectDir, env: { MEDIAN_API_URL: world.emulator.url } });
    expect(await cli.exited).toBe(1);
    expect(eventsOf(cli, 'error')).toEqual([expect.objectContaining({ code: 'proxy_port_in_use' })]);
  });
});
