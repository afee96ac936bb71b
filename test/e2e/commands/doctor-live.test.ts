import { refusedOrigin } from '../../helpers/refused-port.js';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { isEvent, useE2eWorld, waitForEventAfter, type E2eWorld } from '../../helpers/e2e-world.js';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

/** `median-dev doctor --json` from a second terminal, in the running daemon's data dir. */
async function doctor(world: E2eWorld): Promise<{ code: number | null; checks: Check[]; tunnel: Check | undefined }> {
  const cli = spawnCli(['doctor', '--json', '--data-dir', world.dataDir, '--env-file', world.envFile, '--median-api', world.emulator.url], { cwd: world.projectDir });
  const code = await cli.exited;
  const { checks } = JSON.parse(cli.stdout()) as { checks: Check[] };
  return { code, checks, tunnel: checks.find((c) => c.check === 'tunnel') };
}

/**
 * The daemon's tunnel on the loopback tunnel server, whose `.test` names have
 * no DNS: `doctor` asks the running daemon for its state and checks the
 * public URL through the tunnel server (the `--tunnel-host` it was given).
 */
describe('doctor sees the live tunnel', () => {
  it('healthy: the public tools URL is read signed through the tunnel, end to end (the proxy records it)', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const mark = cli.events().length;
    const { code, tunnel } = await doctor(world);
    expect(code).toBe(0);
    expect(tunnel).toMatchObject({ status: 'ok', message: expect.stringContaining(synced.url as string) });
    // The manifest read went through the public URL and the proxy, as Median's sync does.
    await waitForEventAfter(cli, mark, 'call', { kind: 'manifest' });
  }, 45_000);

  it('the tunnel server is gone: tunnel fails with the daemon’s reason, exit 1', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const mark = cli.events().length;
    await world.tunnelServer.close();
    await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'down' }) && String(e.reason).startsWith('reopening failed'), 20_000);
    expect(cli.events().slice(mark).some((e) => isEvent(e, 'tunnel', { state: 'open' }))).toBe(false);
    const { code, tunnel } = await doctor(world);
    expect(code).toBe(1);
    expect(tunnel).toMatchObject({ status: 'fail', message: expect.stringContaining('reopening failed') });
  }, 45_000);

  it('the tunnel never opened: a tunnel line that fails, exit 1', async () => {
    const world = await useE2eWorld();
    const cli = world.start({ args: ['--tunnel-host', await refusedOrigin()] });
    await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'down' }));
    const { code, tunnel } = await doctor(world);
    expect(code).toBe(1);
    expect(tunnel).toMatchObject({ status: 'fail', message: expect.stringContaining('has not opened') });
  }, 45_000);

  it('a frozen tunnel (sockets open, nothing piped) fails end to end, exit 1', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    world.tunnelServer.setForwarding(new URL(synced.url as string).hostname.split('.')[0]!, false);
    // Whether doctor's own check finds it wedged or the daemon already took it down, the tunnel fails.
    const { code, tunnel } = await doctor(world);
    expect(code).toBe(1);
    expect(tunnel?.status).toBe('fail');
  }, 45_000);
});
