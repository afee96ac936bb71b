import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, freePort, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

/** `start`'s argv without `--target <url>`: the remembered one applies. */
function withoutTarget(args: string[]): string[] {
  const at = args.indexOf('--target');
  return at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
}

describe('median-dev start: the target', () => {
  it('reuses the last --target, and says target_unreachable within seconds when nothing answers there', async () => {
    const world = await useE2eWorld();
    const first = world.start();
    await waitForEventAfter(first, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(await first.stop('SIGINT')).toBe(0);

    // No --target: the one the last start used (README, --help), not http://localhost:3000.
    const env = { PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url };
    const again = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, EXAMPLE_ROUTE], { cwd: world.projectDir, env });
    await waitForEventAfter(again, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(again.events().filter((e) => isEvent(e, 'error'))).toEqual([]);
    expect(await again.stop('SIGINT')).toBe(0);

    // The dev server now listens elsewhere: said in seconds, naming where it listens.
    const elsewhere = await freePort();
    const moved = spawnCli([...withoutTarget(world.startArgs()), '--', process.execPath, EXAMPLE_ROUTE], { cwd: world.projectDir, env: { ...env, PORT: String(elsewhere) } });
    const running = await moved.waitForEvent((e) => isEvent(e, 'child', { state: 'running' }), 30_000);
    const said = await moved.waitForEvent((e) => isEvent(e, 'error', { code: 'target_unreachable' }), 15_000);
    expect(Date.parse(said.at as string) - Date.parse(running.at as string)).toBeLessThan(8_000);
    expect(said.message).toContain(`http://127.0.0.1:${world.routePort}`);
    expect(said.hint).toContain(`--target http://127.0.0.1:${elsewhere}`);
    expect(await moved.stop('SIGINT')).toBe(0);
  }, 120_000);

  it('without a dev server command, says target_unreachable in seconds while it opens the route', async () => {
    const world = await useE2eWorld();
    const cli = spawnCli(world.startArgs(), { cwd: world.projectDir, env: { MEDIAN_API_URL: world.emulator.url } });
    const open = await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'open' }), 30_000);
    const said = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'target_unreachable' }), 15_000);
    expect(Date.parse(said.at as string) - Date.parse(open.at as string)).toBeLessThan(8_000);
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);
});
