import { describe, expect, it, vi } from 'vitest';
import { createCloudflaredProvider, isFinalTunnelError, startTunnel, type TunnelEvent } from '../../../src/tunnel/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { FAKE_CLOUDFLARED, anyAlive, argsIn, fakeCloudflaredEnv, getThroughEdge, pidsIn } from '../../helpers/fake-tunnel-programs.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The proxy stand-in: what the tunnel forwards to. */
async function useOrigin() {
  return useHttpServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, host: req.headers.host }));
  });
}

async function provider(mode?: string, extra: Partial<Parameters<typeof createCloudflaredProvider>[0]> = {}, env: Record<string, string> = {}) {
  const dir = await useTempDir('median-dev-cloudflared-');
  const fake = await fakeCloudflaredEnv(dir, mode);
  return { fake, provider: createCloudflaredProvider({ binary: FAKE_CLOUDFLARED, env: { ...process.env, ...fake.env, ...env }, openTimeoutMs: 10_000, pollMs: 50, ...extra }) };
}

describe('the cloudflared provider', () => {
  it('opens a quick tunnel: the hostname from /quicktunnel, requests reach the proxy', async () => {
    const origin = await useOrigin();
    const { fake, provider: cloudflared } = await provider();
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).toMatch(/^https:\/\/[a-z0-9-]+\.trycloudflare\.com$/);
    const answer = await getThroughEdge(fake.edgePort, connection.url, '/api/median');
    expect(JSON.parse(answer.body)).toMatchObject({ path: '/api/median', host: new URL(connection.url).host });
  });

  it('a named tunnel: cloudflared tunnel run <name>, the URL is the hostname routed to it, ready on /ready', async () => {
    const origin = await useOrigin();
    const { fake, provider: cloudflared } = await provider(undefined, { namedTunnel: { name: 'dev', publicUrl: 'https://dev.example.com' } });
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).toBe('https://dev.example.com');
    expect(JSON.parse((await getThroughEdge(fake.edgePort, connection.url, '/x')).body)).toMatchObject({ path: '/x' });
  });

  it('lets cloudflared pick its metrics port and reads it from its log: no port handed over for another process to take first', async () => {
    const origin = await useOrigin();
    const { fake, provider: cloudflared } = await provider();
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    const [args] = await argsIn(fake.argsFile);
    expect(args![args!.indexOf('--metrics') + 1]).toBe('127.0.0.1:0');
    expect(connection.url).toMatch(/\.trycloudflare\.com$/);
  });

  it('a log level above info (TUNNEL_LOGLEVEL, a config file) still opens: median-dev asks for --loglevel info', async () => {
    const origin = await useOrigin();
    const { provider: cloudflared } = await provider(undefined, {}, { TUNNEL_LOGLEVEL: 'warn' });
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).toMatch(/\.trycloudflare\.com$/);
  });

  it('reads the box line when the metrics server does not answer', async () => {
    const origin = await useOrigin();
    const { provider: cloudflared } = await provider('no-metrics');
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).toMatch(/\.trycloudflare\.com$/);
  });

  it('says a rate limit as such, and waits before asking again', async () => {
    const clock = createManualClock();
    const { fake, provider: cloudflared } = await provider('rate-limited', { rateLimitPauseMs: 300, clock });
    // The fake prints Cloudflare's refusal and exits: the open ends on that exit, not on a poll.
    await expect(cloudflared.open({ localPort: 1 })).rejects.toMatchObject({ code: 'cloudflared_rate_limited' });
    const started = clock.now();
    clock.advance(100); // 200 ms of the pause left
    const second = cloudflared.open({ localPort: 1 });
    // It waits out the rest of the pause on the clock before starting another cloudflared.
    await vi.waitFor(() => expect(clock.nextTimerIn()).toBe(200));
    expect(await pidsIn(fake.pidFile)).toHaveLength(1);
    clock.advance(10_000);
    await expect(second).rejects.toMatchObject({ code: 'cloudflared_rate_limited' });
    expect(clock.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('a missing binary is cloudflared_not_found, final', async () => {
    const cloudflared = createCloudflaredProvider({ binary: '/nonexistent/cloudflared', env: {} });
    const error = await cloudflared.open({ localPort: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'cloudflared_not_found' });
    expect(isFinalTunnelError(error)).toBe(true);
  });

  it('one that exits while opening is cloudflared_exited, naming its last lines', async () => {
    const { provider: cloudflared } = await provider('exit-early');
    const error = await cloudflared.open({ localPort: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'cloudflared_exited' });
    expect(isFinalTunnelError(error)).toBe(false);
  });

  it('killed, it is lost; closed, nothing of it is left', async () => {
    const origin = await useOrigin();
    const { fake, provider: cloudflared } = await provider();
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    const lost = new Promise<string>((resolve) => connection.onLost(resolve));
    const [pid] = await pidsIn(fake.pidFile);
    process.kill(pid!, 'SIGKILL');
    await expect(lost).resolves.toMatch(/cloudflared exited/);

    const second = await cloudflared.open({ localPort: origin.port });
    await second.close();
    const pids = await pidsIn(fake.pidFile);
    expect(pids).toHaveLength(2);
    expect(anyAlive(pids)).toBe(false);
  });

  it('under startTunnel: a cloudflared that died comes back with a new hostname, a hostname change', async () => {
    const origin = await useOrigin();
    const { fake, provider: cloudflared } = await provider();
    const events: TunnelEvent[] = [];
    const handle = useTeardown(
      await startTunnel({ provider: cloudflared, localPort: origin.port, onEvent: (e) => events.push(e), quickReopenMs: 20, wakeJumpMs: 0 }),
      (h) => h.close(),
    );
    const firstUrl = handle.url!;
    const [pid] = await pidsIn(fake.pidFile);
    process.kill(pid!, 'SIGKILL');
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'opened')).toHaveLength(2), { timeout: 10_000 });
    const reopened = events.filter((e) => e.type === 'opened')[1]!;
    expect(reopened).toMatchObject({ isHostnameChange: true, previousUrl: firstUrl });
    expect(events.some((e) => e.type === 'down' && e.reason === 'sockets-gone')).toBe(true);
    await handle.close();
    expect(anyAlive(await pidsIn(fake.pidFile))).toBe(false);
  });
});
