import { describe, expect, it, vi } from 'vitest';
import {
  createLocaltunnelProvider,
  startTunnel,
  type HealthProbe,
  type HealthProbeResult,
  type StartTunnelOptions,
  type TunnelEvent,
  type TunnelHandle,
} from '../../../src/tunnel/index.js';
import type { TunnelServer } from '../../../src/tunnel-server/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, tunnelHost, tunnelServerProbe, useTunnelServer } from '../../helpers/use-tunnel-server.js';

const FAST_PROVIDER = { openTimeoutMs: 3000, lostAfterMs: 300, socketRetryBaseMs: 20, socketRetryMaxMs: 100 };
const FAST_REOPEN = { reconnectBaseMs: 20, reconnectMaxMs: 100 };

interface Started {
  handle: TunnelHandle;
  events: TunnelEvent[];
  /** Resolves with the next event of that type (after the ones already seen). */
  next<K extends TunnelEvent['type']>(type: K, timeoutMs?: number): Promise<Extract<TunnelEvent, { type: K }>>;
}

async function useTunnel(server: TunnelServer, localPort: number, options: Partial<StartTunnelOptions> = {}): Promise<Started> {
  const events: TunnelEvent[] = [];
  const handle = useTeardown(
    await startTunnel({
      provider: createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER }),
      localPort,
      ...FAST_REOPEN,
      onEvent: (event) => events.push(event),
      ...options,
    }),
    (h) => h.close(),
  );
  return {
    handle,
    events,
    next(type, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${type}" event within ${timeoutMs} ms`)), timeoutMs);
        const off = handle.on(type, (event) => {
          clearTimeout(timer);
          off();
          resolve(event);
        });
      });
    },
  };
}

async function useOkApp() {
  return useHttpServer((req, res) => res.end(`app:${req.url}`));
}

describe('startTunnel', () => {
  it('resolves once open and reports the first opened event', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const { handle, events } = await useTunnel(server, app.port, { subdomain: 'first-open' });
    expect(handle.url).toBe('https://first-open.lt.median.test');
    expect(handle.subdomain).toBe('first-open');
    expect(handle.isOpen).toBe(true);
    expect(handle.providerName).toBe('localtunnel');
    expect(events).toEqual([
      {
        type: 'opened',
        url: 'https://first-open.lt.median.test',
        subdomain: 'first-open',
        requestedSubdomain: 'first-open',
        isHostnameChange: false,
        previousUrl: undefined,
      },
    ]);
    expect((await requestVia(server, tunnelHost(server, 'first-open'), { path: '/x' })).body).toBe('app:/x');
  });

  it('marks the first open a hostname change when the requested name stays taken, after asking again for a while', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    server.holdName('wanted-name');
    const { handle, events } = await useTunnel(server, app.port, { subdomain: 'wanted-name', nameRetryMs: 300, nameRetryBaseMs: 50 });
    expect(handle.subdomain).not.toBe('wanted-name');
    expect(events).toEqual([expect.objectContaining({ type: 'opened', requestedSubdomain: 'wanted-name', isHostnameChange: true })]);
    // It asked again (after 50, 100, then what is left of the 300 ms) and kept the first name it got.
    expect(server.stats().registrations).toBeGreaterThanOrEqual(2);
    expect(server.stats().registrations).toBeLessThanOrEqual(4);
    await vi.waitFor(() => expect(server.clients().map((c) => c.id)).toEqual([handle.subdomain]));
  });

  it('on the first open, gets back its own name that the server still held from its last run', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 400 });
    const app = await useOkApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER });
    const lastRun = await provider.open({ localPort: app.port, subdomain: 'my-project' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    await lastRun.close();
    // Right after a restart the server still holds the name for its grace period.
    expect(server.clients().map((c) => c.id)).toEqual(['my-project']);

    const { handle, events } = await useTunnel(server, app.port, { subdomain: 'my-project', nameRetryBaseMs: 100 });
    expect(handle.url).toBe('https://my-project.lt.median.test');
    expect(events).toEqual([expect.objectContaining({ type: 'opened', subdomain: 'my-project', isHostnameChange: false })]);
    expect(server.stats().registrations).toBeGreaterThanOrEqual(3);
    // The stand-in it got first is given back.
    await vi.waitFor(() => expect(server.clients().map((c) => c.id)).toEqual(['my-project']));
    expect((await requestVia(server, tunnelHost(server, 'my-project'), { path: '/back' })).body).toBe('app:/back');
  });

  it('reopens within a moment when the tunnel server restarts on the same port, under the same name', async () => {
    const first = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(first, app.port, {
      subdomain: 'restarted',
      provider: createLocaltunnelProvider({ host: first.url, ...FAST_PROVIDER, lostAfterMs: 10_000 }),
      reconnectBaseMs: 1000,
      reconnectMaxMs: 10_000,
      quickReopenMs: 50,
    });
    await vi.waitFor(() => expect(first.clients()[0]?.sockets).toBe(10));

    const down = tunnel.next('down');
    const reopened = tunnel.next('opened', 3000);
    const restartedAt = Date.now();
    await first.close();
    const second = await useTunnelServer({ port: first.port });
    // Refused sockets mean the registration is gone: down at once, not after the 10 s lost window.
    expect(await down).toMatchObject({ reason: 'sockets-gone', message: expect.stringMatching(/refused/) });
    expect(await reopened).toMatchObject({ url: 'https://restarted.lt.median.test', isHostnameChange: false });
    expect(Date.now() - restartedAt).toBeLessThan(1500);
    expect((await requestVia(second, tunnelHost(second, 'restarted'))).status).toBe(200);
  });

  it('a tunnel that had been up a while gets the quick reopen even after a recent loss; a flapping one backs off', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    let fakeNow = 1_000_000;
    const tunnel = await useTunnel(server, app.port, {
      subdomain: 'steady',
      reconnectBaseMs: 1000,
      reconnectMaxMs: 10_000,
      quickReopenMs: 50,
      flapWindowMs: 60_000,
      stableAfterMs: 10_000,
      now: () => fakeNow,
    });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    const reopenTime = async () => {
      const reopened = tunnel.next('opened', 5000);
      const droppedAt = Date.now();
      server.dropClient('steady', { forget: true });
      await reopened;
      await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
      return Date.now() - droppedAt;
    };
    // Up 20 s (by the tunnel's clock) before each loss: not flapping, though the losses are 20 s apart.
    fakeNow += 20_000;
    expect(await reopenTime()).toBeLessThan(700);
    fakeNow += 20_000;
    expect(await reopenTime()).toBeLessThan(700);
    // Lost again right after it opened, within the flap window: the backoff (≥ 750 ms) applies.
    fakeNow += 1_000;
    expect(await reopenTime()).toBeGreaterThanOrEqual(700);
  });

  it('after dropClient the sockets come back under the same name, without registering again', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const { handle, events } = await useTunnel(server, app.port, { subdomain: 'dropped' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.dropClient('dropped');
    await vi.waitFor(() => expect(server.clients()).toEqual([{ id: 'dropped', url: handle.url, sockets: 10 }]));
    expect((await requestVia(server, tunnelHost(server, 'dropped'))).status).toBe(200);
    expect(server.stats().registrations).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['opened']);
  });

  it('when the server forgets it: down within the lost window, then registers again under the same name', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'forgotten' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    const down = tunnel.next('down');
    const reopened = tunnel.next('opened');
    server.dropClient('forgotten', { forget: true });
    expect(await down).toMatchObject({ type: 'down', reason: 'sockets-gone' });
    expect(tunnel.handle.isOpen).toBe(false);
    expect(await reopened).toMatchObject({
      url: 'https://forgotten.lt.median.test',
      requestedSubdomain: 'forgotten',
      isHostnameChange: false,
      previousUrl: 'https://forgotten.lt.median.test',
    });
    expect(server.stats().registrations).toBe(2);
    expect((await requestVia(server, tunnelHost(server, 'forgotten'))).status).toBe(200);
  });

  it('reports a hostname change when the name is refused on reconnect', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'renamed' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    const reopened = tunnel.next('opened');
    server.refuseName('renamed');
    server.dropClient('renamed', { forget: true });
    const event = await reopened;
    expect(event).toMatchObject({ requestedSubdomain: 'renamed', isHostnameChange: true, previousUrl: 'https://renamed.lt.median.test' });
    expect(event.subdomain).not.toBe('renamed');
    expect(tunnel.handle.url).toBe(event.url);
    expect((await requestVia(server, new URL(event.url).host)).status).toBe(200);
  });

  it('asks for its own name again on every reopen, and gets it back once it is free', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'stable-name' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    const renamed = tunnel.next('opened');
    server.refuseName('stable-name');
    server.dropClient('stable-name', { forget: true });
    const first = await renamed;
    expect(first.subdomain).not.toBe('stable-name');
    expect(tunnel.handle.subdomain).toBe(first.subdomain);

    // The refusal was for one registration: the next reopen gets the stable name back.
    const back = tunnel.next('opened');
    server.dropClient(first.subdomain!, { forget: true });
    expect(await back).toMatchObject({ requestedSubdomain: 'stable-name', subdomain: 'stable-name', isHostnameChange: true });
  });

  it('keeps reopening with backoff while registration fails, and recovers when it works again', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'flaky' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.setRegistrationFault({ status: 500 });
    server.dropClient('flaky', { forget: true });
    await vi.waitFor(() => expect(tunnel.events.filter((e) => e.type === 'reopen-failed').length).toBeGreaterThanOrEqual(3));
    const failures = tunnel.events.filter((e) => e.type === 'reopen-failed');
    expect(failures[0]).toMatchObject({ attempt: 1, code: 'tunnel_registration_refused' });
    expect(failures.map((e) => e.retryInMs).every((ms) => ms >= 15 && ms <= 100)).toBe(true);

    const reopened = tunnel.next('opened');
    server.setRegistrationFault(null);
    expect(await reopened).toMatchObject({ url: 'https://flaky.lt.median.test', isHostnameChange: false });
  });

  it('close() leaves nothing: the server forgets the client and no reconnect follows', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'closing' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    await Promise.all([tunnel.handle.close(), tunnel.handle.close()]);
    expect(tunnel.handle.isOpen).toBe(false);
    await vi.waitFor(() => expect(server.clients()).toEqual([]));
    // Far longer than the 20–100 ms backoff: a reconnect would have registered by now.
    await expect(
      vi.waitFor(() => expect(server.stats().registrations).toBeGreaterThan(1), { timeout: 500 }),
    ).rejects.toThrow();
    expect(tunnel.events.map((e) => e.type)).toEqual(['opened']);
  });

  it('close() while reopening stops the retries', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'retrying' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    server.setRegistrationFault({ status: 500 });
    // Closed right when an attempt failed and the next one is only a timer,
    // so no registration is in flight and the count is exact.
    const closed = new Promise<number>((resolve) => {
      tunnel.handle.on('reopen-failed', () => {
        const registrations = server.stats().registrations;
        void tunnel.handle.close().then(() => resolve(registrations));
      });
    });
    server.dropClient('retrying', { forget: true });
    const after = await closed;
    expect(after).toBeGreaterThanOrEqual(2);
    await expect(
      vi.waitFor(() => expect(server.stats().registrations).toBeGreaterThan(after), { timeout: 500 }),
    ).rejects.toThrow();
    expect(tunnel.events.filter((e) => e.type === 'reopen-failed')).toHaveLength(1);
  });

  it('rejects without retrying when the first open fails, and an abort stops it', async () => {
    const server = await useTunnelServer();
    server.setRegistrationFault({ status: 500 });
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER });
    await expect(startTunnel({ provider, localPort: 1, ...FAST_REOPEN })).rejects.toMatchObject({ code: 'tunnel_registration_refused' });
    expect(server.stats().registrations).toBe(1);

    server.setRegistrationFault('stall');
    const controller = new AbortController();
    const starting = startTunnel({ provider, localPort: 1 }, { signal: controller.signal });
    await vi.waitFor(() => expect(server.stats().registrations).toBe(2));
    controller.abort();
    await expect(starting).rejects.toMatchObject({ code: 'tunnel_open_aborted' });
  });

  it('aborting the start signal later closes the handle', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    const controller = new AbortController();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER });
    const handle = useTeardown(await startTunnel({ provider, localPort: app.port }, { signal: controller.signal }), (h) => h.close());
    controller.abort();
    await vi.waitFor(() => expect(handle.isOpen).toBe(false));
    await vi.waitFor(() => expect(server.clients()).toEqual([]));
  });
});

describe('startTunnel health probe', () => {
  /** A probe that answers from a script, then healthy; resolves `calls(n)` once called n times. */
  function scriptedProbe(script: HealthProbeResult[]) {
    const urls: string[] = [];
    const waiters: Array<{ n: number; resolve: () => void }> = [];
    const probe: HealthProbe = async (url) => {
      urls.push(url);
      for (const waiter of waiters.filter((w) => urls.length >= w.n)) waiter.resolve();
      return script.shift() ?? { kind: 'answered', status: 200 };
    };
    const calls = (n: number) => new Promise<void>((resolve) => (urls.length >= n ? resolve() : waiters.push({ n, resolve })));
    return { probe, urls, calls };
  }

  it('probes /__median-dev/health through the public URL and stays open while the app answers', async () => {
    const server = await useTunnelServer();
    const seen: string[] = [];
    const app = await useHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('ok');
    });
    const real = tunnelServerProbe(server);
    let probes = 0;
    const tunnel = await useTunnel(server, app.port, {
      subdomain: 'probed',
      probeIntervalMs: 20,
      probe: async (url, options) => {
        probes += 1;
        return real(url, options);
      },
    });
    await vi.waitFor(() => expect(probes).toBeGreaterThanOrEqual(5));
    expect(seen).toContain('/__median-dev/health');
    expect(tunnel.handle.isOpen).toBe(true);
    expect(tunnel.events.map((e) => e.type)).toEqual(['opened']);
  });

  it("goes down after three of the tunnel server's own 404/503 answers in a row, and reopens", async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const missing = (status: number): HealthProbeResult => ({ kind: 'answered', status });
    const { probe, urls } = scriptedProbe([missing(404), missing(503), { kind: 'answered', status: 200 }, missing(404), missing(404), missing(503)]);
    const tunnel = await useTunnel(server, app.port, { subdomain: 'zombie', probeIntervalMs: 20, probe });

    const down = await tunnel.next('down');
    expect(down).toMatchObject({ reason: 'probe-failed' });
    expect(urls).toHaveLength(6);
    expect(urls[0]).toBe('https://zombie.lt.median.test/__median-dev/health');
    // The old registration still holds the name while its sockets linger: a hostname change.
    const reopened = await tunnel.next('opened');
    expect(reopened).toMatchObject({ requestedSubdomain: 'zombie', isHostnameChange: true });
  });

  it('never reopens on probes that cannot reach the URL at all', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const unreachable: HealthProbeResult = { kind: 'unreachable', error: new Error('getaddrinfo ENOTFOUND') };
    const { probe, calls } = scriptedProbe(Array.from({ length: 8 }, () => unreachable));
    const tunnel = await useTunnel(server, app.port, { subdomain: 'offline', probeIntervalMs: 20, probe });
    await calls(10);
    expect(tunnel.handle.isOpen).toBe(true);
    expect(tunnel.events.map((e) => e.type)).toEqual(['opened']);
    expect(server.stats().registrations).toBe(1);
  });

  it('counts a probe that throws or hangs past its timeout as unreachable', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    let probes = 0;
    const probe: HealthProbe = (_url, { signal }) => {
      probes += 1;
      if (probes % 2 === 0) return Promise.reject(new Error('boom'));
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const tunnel = await useTunnel(server, app.port, { subdomain: 'hanging', probeIntervalMs: 10, probeTimeoutMs: 20, probe });
    await vi.waitFor(() => expect(probes).toBeGreaterThanOrEqual(6));
    expect(tunnel.handle.isOpen).toBe(true);
    expect(tunnel.events.map((e) => e.type)).toEqual(['opened']);
  });
});
