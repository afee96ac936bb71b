import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, eventsOf, freePort, isEvent, useE2eWorld, useTempDir, type E2eWorld } from '../../helpers/e2e-world.js';

/** A second project with the same key on the same self-hosted tunnel server: a teammate's laptop. */
async function startTeammate(world: E2eWorld) {
  const dir = await useTempDir('median-dev-mate-');
  const envFile = join(dir, '.env.local');
  await writeFile(envFile, `MEDIAN_KEY=${world.emulator.key}\n`);
  const port = await freePort();
  const dataDir = join(dir, '.median-dev');
  const common = ['--data-dir', dataDir, '--env-file', envFile, '--median-api', world.emulator.url];
  const cli = spawnCli(
    ['start', '--json', '--no-tui', '--port', '0', '--tunnel-host', world.tunnelServer.url, '--target', `http://127.0.0.1:${port}`, ...common, '--', process.execPath, EXAMPLE_ROUTE],
    { cwd: dir, env: { PORT: String(port), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url } },
  );
  return { cli, doctor: () => runCliInProcess(['doctor', '--json', ...common], { env: {}, cwd: dir }) };
}

describe('a teammate on the same self-hosted tunnel server', () => {
  it('is a dev tunnel, not production: the second project connects (its clash left alone), no production_org', async () => {
    const world = await useE2eWorld({ tunnelDomain: 'lt.example.test' });
    const first = world.start();
    const synced = await first.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(synced.url).toMatch(/\.lt\.example\.test\/api\/median$/);

    const mate = await startTeammate(world);
    // The same example tools: its sync clashes with the first project's endpoint, a dev tunnel median-dev leaves alone.
    const clash = await mate.cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }), 30_000);
    expect(clash).toMatchObject({ otherUrl: synced.url, otherOwner: 'dev-tunnel' });
    expect(eventsOf(mate.cli, 'error', { code: 'production_org' })).toEqual([]);

    // doctor in the second project, after the fact, classifies it the same way.
    const { checks } = JSON.parse((await mate.doctor()).stdout) as { checks: Array<{ check: string; status: string; message: string }> };
    expect(checks.find((c) => c.check === 'production')).toBeUndefined();
    expect(checks.find((c) => c.check === 'dev-tunnels')).toMatchObject({ status: 'warn', message: expect.stringContaining(synced.url as string) });
  }, 60_000);
});
