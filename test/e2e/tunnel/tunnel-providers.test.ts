import { describe, expect, it } from 'vitest';
import { readProjectState } from '../../../src/config/index.js';
import { findExecutable } from '../../../src/platform/index.js';
import type { SpawnedCli } from '../../helpers/cli-harness.js';
import { useE2eWorld, useTempDir, waitForEventAfter, isEvent, type E2eWorld } from '../../helpers/e2e-world.js';
import { FAKES_DIR, anyAlive, fakeCloudflaredEnv, pidsIn } from '../../helpers/fake-tunnel-programs.js';
import { freeTestPort } from '../../helpers/free-test-port.js';
import { useFakeNgrokAgent } from '../../helpers/use-fake-ngrok-agent.js';
import { useSshTunnelServer } from '../../helpers/use-ssh-tunnel-server.js';

/**
 * `median-dev start` with each provider that has a fake here: the endpoint
 * syncs through the provider's URL, a hostname change runs the heal order
 * (the same endpoint changed in place, synced), a silent death is noticed
 * by the probe (sent to the fake's edge: MEDIAN_DEV_TUNNEL_PROBE_VIA), and
 * stopping leaves none of the provider's processes behind. The point being
 * what the probe finds through each provider, not when it looks, an idle
 * tunnel is probed every second here (MEDIAN_DEV_TUNNEL_PROBE_INTERVAL_MS);
 * the default 24 s and the 30 s promise are test/e2e/tunnel/dead-tunnel.test.ts's.
 */
const PROBE_EVERY_SECOND = { MEDIAN_DEV_TUNNEL_PROBE_INTERVAL_MS: '1000' };
async function expectHealedTo(cli: SpawnedCli, mark: number, endpointId: string): Promise<string> {
  const opened = await waitForEventAfter(cli, mark, 'tunnel', { state: 'open', isHostnameChange: true }, 20_000);
  const url = `${opened.url as string}/api/median`;
  expect(await waitForEventAfter(cli, mark, 'endpoint', { action: 'changed', url }, 20_000)).toMatchObject({ id: endpointId });
  await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced', url }, 20_000);
  return url;
}

async function expectCallAnswered(world: E2eWorld, toolsUrl: string): Promise<void> {
  const call = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: toolsUrl });
  expect(call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
}

describe('median-dev start with other tunnel providers', () => {
  it('cloudflared: synced through trycloudflare.com, a restarted cloudflared heals, a frozen one is noticed, nothing left after stop', async () => {
    const world = await useE2eWorld();
    const fake = await fakeCloudflaredEnv(await useTempDir('median-dev-cf-'));
    world.emulator.addResolver((hostname) => (hostname.endsWith('.trycloudflare.com') ? { host: '127.0.0.1', port: fake.edgePort } : undefined));
    const cli = world.start({
      args: ['--tunnel', 'cloudflared'],
      env: { ...fake.env, PATH: `${FAKES_DIR}:${process.env.PATH}`, MEDIAN_DEV_TUNNEL_PROBE_VIA: `http://127.0.0.1:${fake.edgePort}`, ...PROBE_EVERY_SECOND },
    });
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(synced.url).toMatch(/^https:\/\/[a-z0-9-]+\.trycloudflare\.com\/api\/median$/);
    expect(cli.events().find((e) => isEvent(e, 'tunnel', { state: 'open' }))).toMatchObject({ provider: 'cloudflared' });
    await expectCallAnswered(world, synced.url as string);

    let mark = cli.events().length;
    process.kill((await pidsIn(fake.pidFile))[0]!, 'SIGKILL');
    const healed = await expectHealedTo(cli, mark, synced.id as string);
    await expectCallAnswered(world, healed);

    mark = cli.events().length;
    const frozen = (await pidsIn(fake.pidFile)).at(-1)!;
    process.kill(frozen, 'SIGSTOP');
    try {
      const down = await waitForEventAfter(cli, mark, 'tunnel', { state: 'down' }, 20_000); // silent death: noticed by the probe
      expect(down.reason).toMatch(/^probe-failed/);
      await expectHealedTo(cli, mark, synced.id as string);
    } finally {
      if (anyAlive([frozen])) process.kill(frozen, 'SIGCONT');
    }
    expect((await readProjectState(world.dataDir)).tunnel).toBe('cloudflared');
    await cli.stop();
    expect(anyAlive(await pidsIn(fake.pidFile))).toBe(false);
  }, 90_000);

  it('ssh: the real OpenSSH client through a server playing localhost.run; a dropped connection heals to the new name', async () => {
    if (!findExecutable('ssh', process.env)) throw new Error('This test drives the real OpenSSH client: apt-get install -y openssh-client');
    const world = await useE2eWorld();
    const server = await useSshTunnelServer(await useTempDir('median-dev-ssh-'));
    world.emulator.addResolver((hostname) => (hostname.endsWith('.lhr.life') ? { host: '127.0.0.1', port: server.edgePort } : undefined));
    const sshOptions = [`UserKnownHostsFile=${server.knownHostsFile}`, 'StrictHostKeyChecking=yes', 'IdentitiesOnly=yes', 'IdentityFile=/dev/null', 'ServerAliveInterval=1'];
    const cli = world.start({
      args: ['--tunnel', 'ssh', '--ssh', server.destination, ...sshOptions.flatMap((option) => ['--ssh-option', option])],
      env: { MEDIAN_DEV_TUNNEL_PROBE_VIA: `http://127.0.0.1:${server.edgePort}` },
    });
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(synced.url).toBe(`${server.urls[0]}/api/median`);
    const mark = cli.events().length;
    server.dropAll();
    const healed = await expectHealedTo(cli, mark, synced.id as string);
    expect(healed).toBe(`${server.urls[1]}/api/median`);
    await expectCallAnswered(world, healed);
    const state = await readProjectState(world.dataDir);
    expect(state).toMatchObject({ tunnel: 'ssh', sshDestination: server.destination });
    await cli.stop();
    expect(server.clientCount()).toBe(0);
  }, 90_000);

  it('ngrok --attach: the agent’s endpoint for the proxy; the agent moving to another URL heals', async () => {
    const world = await useE2eWorld();
    const agent = await useFakeNgrokAgent();
    world.emulator.addResolver((hostname) => (hostname.endsWith('.ngrok-free.app') ? { host: '127.0.0.1', port: agent.edgePort } : undefined));
    const proxyPort = await freeTestPort();
    agent.serve([{ url: 'https://aaa111.ngrok-free.app', upstream: `localhost:${proxyPort}` }]);
    const cli = world.start({
      args: ['--tunnel', 'ngrok', '--attach', '--ngrok-api', agent.apiUrl, '--port', String(proxyPort)],
      env: { MEDIAN_DEV_TUNNEL_PROBE_VIA: `http://127.0.0.1:${agent.edgePort}`, MEDIAN_DEV_NGROK_FOLLOW_MS: '100' },
    });
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(synced.url).toBe('https://aaa111.ngrok-free.app/api/median');
    const mark = cli.events().length;
    agent.serve([{ url: 'https://bbb222.ngrok-free.app', upstream: `localhost:${proxyPort}` }]);
    expect(await expectHealedTo(cli, mark, synced.id as string)).toBe('https://bbb222.ngrok-free.app/api/median');
    await cli.stop();
  }, 60_000);
});
