import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { findExecutable, isProcessAlive } from '../../../src/platform/index.js';
import { createSshProvider, isFinalTunnelError, startTunnel, type TunnelEvent } from '../../../src/tunnel/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { getThroughEdge } from '../../helpers/fake-tunnel-programs.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useSshTunnelServer } from '../../helpers/use-ssh-tunnel-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const SSH = findExecutable('ssh', process.env);
if (!SSH) throw new Error('These tests drive the real OpenSSH client: apt-get install -y openssh-client');

async function setUp(options: { knownHosts?: 'ours' | 'empty'; user?: string } = {}) {
  const dir = await useTempDir('median-dev-ssh-');
  const server = await useSshTunnelServer(dir);
  const origin = await useHttpServer((req, res) => res.end(JSON.stringify({ path: req.url })));
  let knownHosts = server.knownHostsFile;
  if (options.knownHosts === 'empty') {
    knownHosts = join(dir, 'empty_known_hosts');
    await writeFile(knownHosts, '');
  }
  const destination = options.user ? server.destination.replace('nokey@', `${options.user}@`) : server.destination;
  const provider = createSshProvider({
    binary: SSH!,
    destination,
    // As a user would pass them (--ssh-option): our own known_hosts, no keys of the machine's user.
    options: [`UserKnownHostsFile=${knownHosts}`, 'StrictHostKeyChecking=yes', 'IdentitiesOnly=yes', 'IdentityFile=/dev/null', 'LogLevel=ERROR'],
    aliveIntervalS: 1,
    env: process.env,
    openTimeoutMs: 10_000,
  });
  return { server, origin, provider };
}

describe('the ssh provider, driving the real OpenSSH client', () => {
  it('reads the URL localhost.run prints (not the banner’s links), and requests come down the tunnel', async () => {
    const { server, origin, provider } = await setUp();
    const connection = useTeardown(await provider.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).toMatch(/^https:\/\/[0-9a-f]{12}\.lhr\.life$/);
    expect(server.urls).toEqual([connection.url]);
    const answer = await getThroughEdge(server.edgePort, connection.url, '/api/median');
    expect(JSON.parse(answer.body)).toEqual({ path: '/api/median' });
  });

  it('never accepts an unknown host key: ssh_host_key_unknown, final', async () => {
    const { origin, provider } = await setUp({ knownHosts: 'empty' });
    const error = await provider.open({ localPort: origin.port }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ssh_host_key_unknown' });
    expect(isFinalTunnelError(error)).toBe(true);
  });

  it('a refused login is ssh_auth_failed (BatchMode: no password prompt)', async () => {
    const { origin, provider } = await setUp({ user: 'someone' });
    await expect(provider.open({ localPort: origin.port })).rejects.toMatchObject({ code: 'ssh_auth_failed' });
  });

  it('a server that goes silent ends ssh (ServerAliveInterval): lost; closed, no ssh is left', async () => {
    const { server, origin, provider } = await setUp();
    const connection = useTeardown(await provider.open({ localPort: origin.port }), (c) => c.close());
    const lost = new Promise<string>((resolve) => connection.onLost(resolve));
    server.freeze();
    await expect(lost).resolves.toMatch(/ssh exited/);
    await connection.close();
    await vi.waitFor(() => expect(server.clientCount()).toBe(0), { timeout: 5_000 });
  });

  it('under startTunnel: the server dropping us is a reopen with a new name, a hostname change', async () => {
    const { server, origin, provider } = await setUp();
    const events: TunnelEvent[] = [];
    const handle = useTeardown(
      await startTunnel({ provider, localPort: origin.port, onEvent: (e) => events.push(e), quickReopenMs: 20, wakeJumpMs: 0 }),
      (h) => h.close(),
    );
    server.dropAll();
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'opened')).toHaveLength(2), { timeout: 10_000 });
    expect(events.filter((e) => e.type === 'opened')[1]).toMatchObject({ isHostnameChange: true, url: server.urls[1] });
    await handle.close();
    await vi.waitFor(() => expect(server.clientCount()).toBe(0), { timeout: 5_000 });
  });

  it('a server that never prints a URL: tunnel_open_timeout once the open timeout passed on its clock, and ssh is stopped', async () => {
    const dir = await useTempDir('median-dev-ssh-silent-');
    // Stands in for an ssh logged in to a server that forwards but prints nothing (not a tunnel service): it runs and is silent.
    const silentSsh = join(dir, 'ssh');
    await writeFile(silentSsh, `#!/bin/sh\necho $$ > '${join(dir, 'pid')}'\nexec sleep 1000\n`, { mode: 0o755 });
    const clock = createManualClock();
    const provider = createSshProvider({ binary: silentSsh, destination: 'me@tunnel.example.test', env: process.env, openTimeoutMs: 20_000, clock });
    const opening = provider.open({ localPort: 1 }).catch((e: unknown) => e);
    await vi.waitFor(async () => expect(Number(await readFile(join(dir, 'pid'), 'utf8'))).toBeGreaterThan(0));
    const pid = Number(await readFile(join(dir, 'pid'), 'utf8'));
    expect(clock.nextTimerIn()).toBe(20_000);
    clock.advance(19_999);
    expect(isProcessAlive(pid)).toBe(true);
    clock.advance(1);
    expect(await opening).toMatchObject({ code: 'tunnel_open_timeout' });
    expect(isProcessAlive(pid)).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });
});
