import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { isEvent, useTempDir } from '../../helpers/e2e-world.js';

/** A demo waits up to 30 s for its event under load; the suite's 20 s default would end the test first. */
const DEMO_TEST_MS = 40_000;

describe('the emulator and the demo as a team’s organisation', () => {
  it('emulate --production/--teammate holds both endpoints, synced, and says so', async () => {
    const cli = spawnCli([
      'emulate',
      '--port',
      '0',
      '--json',
      '--production',
      'https://acme.example/api/median',
      '--teammate',
      'https://dana-7f3a.loca.lt/api/median',
      '--teammate-tools',
      'orderStatus,lookupCustomer',
    ]);
    const started = await cli.waitForEvent((e) => isEvent(e, 'emulator'));
    expect(started.held).toEqual([
      expect.objectContaining({ url: 'https://acme.example/api/median', status: 'synced', tools: ['shipParcel', 'trackParcel'] }),
      expect.objectContaining({ url: 'https://dana-7f3a.loca.lt/api/median', status: 'synced', tools: ['orderStatus', 'lookupCustomer'] }),
    ]);
    expect(await cli.stop()).toBe(0);
  });

  it('emulate refuses a held URL the cloud would refuse, as a usage error', async () => {
    const cli = spawnCli(['emulate', '--port', '0', '--production', 'http://acme.example/api/median']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('invalid_url');
  });

  it('demo --with-teammate shows the clash with a teammate’s tunnel, left alone', async () => {
    const dataDir = await useTempDir('median-dev-demo-team-');
    const cli = spawnCli(['demo', '--json', '--with-teammate', '--inspector-port', '0', '--data-dir', dataDir]);
    const clash = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }), 30_000);
    expect(clash).toMatchObject({ otherUrl: 'https://dana-7f3a.loca.lt/api/median', otherOwner: 'dev-tunnel', tool: 'orderStatus' });
    expect(cli.events().filter((e) => isEvent(e, 'endpoint', { action: 'removed' }))).toEqual([]);
    await cli.stop();
  }, DEMO_TEST_MS);

  it('demo --with-production stops before connecting, and connects with --allow-production-org', async () => {
    const stopped = spawnCli(['demo', '--json', '--with-production', '--inspector-port', '0', '--data-dir', await useTempDir('median-dev-demo-prod-')]);
    const error = await stopped.waitForEvent((e) => isEvent(e, 'error', { code: 'production_org' }), 30_000);
    expect(error.message).toContain('https://acme.example/api/median');
    await stopped.stop();
    const allowed = spawnCli(['demo', '--json', '--with-production', '--allow-production-org', '--inspector-port', '0', '--data-dir', await useTempDir('median-dev-demo-prod-')]);
    await allowed.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    await allowed.stop();
  }, 2 * DEMO_TEST_MS);
});
