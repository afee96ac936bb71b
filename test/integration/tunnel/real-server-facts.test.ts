import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider, createTunnelBackoff, startTunnel, type TunnelBackoff, type TunnelConnection, type TunnelEvent, type TunnelProvider } from '../../../src/tunnel/index.js';
import { driveClock } from '../../helpers/drive-clock.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';

/**
 * median-dev's localtunnel client against the loopback server set up to
 * behave like localtunnel-server (github localtunnel/server, the code behind
 * localtunnel.me), as observed running it on 127.0.0.1 with Node 20:
 * 1. the public URL is built from the registration's Host header;
 * 2. `max_conn_count` is its --max-sockets but only 10 sockets are accepted;
 * 3. a name is held ~1 s after its sockets close;
 * 4. an unknown host gets the server's 404 (or a front proxy's 502/503/504);
 * 5. a restart refuses the old sockets (covered in start-tunnel.test.ts).
 */
const FAST = { openTimeoutMs: 3000, lostAfterMs: 300, socketRetryBaseMs: 20, socketRetryMaxMs: 100 };

async function useOkApp() {
  return useHttpServer((req, res) => res.end(`app:${req.url}`));
}

describe('fact 1: the URL comes from the Host header the server was reached by', () => {
  it('the loopback server answers https://<id>.<Host> in host-header mode, like localtunnel-server', async () => {
    const server = await useTunnelServer({ publicUrlFrom: 'host-header' });
    const byIp = await requestVia(server, `127.0.0.1:${server.port}`, { path: '/iptest01' });
    expect(JSON.parse(byIp.body)).toMatchObject({ id: 'iptest01', url: `https://iptest01.127.0.0.1:${server.port}` });
    const byName = await requestVia(server, `tunnels.example.test:${server.port}`, { path: '/byname01' });
    expect(JSON.parse(byName.body)).toMatchObject({ id: 'byname01', url: `https://byname01.tunnels.example.test:${server.port}` });
  });

  it('reached by an IP address: one coded error that names --tunnel-host https://<its domain>, and no retry loop', async () => {
    const server = await useTunnelServer({ publicUrlFrom: 'host-header' });
    const app = await useOkApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    const error = await provider.open({ localPort: app.port, subdomain: 'iptest01' }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: 'tunnel_unusable_url', hint: expect.stringContaining('--tunnel-host https://<its domain>') });
    expect((error as Error).message).toContain(`https://iptest01.127.0.0.1:${server.port}`);

    // startTunnel does not retry a first open; the daemon's keeper stops on a final error (see the e2e).
    const registrationsBefore = server.stats().registrations;
    await expect(startTunnel({ provider, localPort: app.port, subdomain: 'iptest02', nameRetryMs: 0 })).rejects.toMatchObject({
      code: 'tunnel_unusable_url',
    });
    expect(server.stats().registrations).toBe(registrationsBefore + 1);
  });

  it('a reopen that gets such an answer is reported final and not scheduled again', async () => {
    const first = await useTunnelServer();
    const app = await useOkApp();
    const events: TunnelEvent[] = [];
    // Every reopen startTunnel schedules asks the backoff for its delay first: noted here.
    const fast = createTunnelBackoff({ baseMs: 20, maxMs: 50, quickMs: 20 });
    const scheduledReopens: number[] = [];
    const backoff: TunnelBackoff = {
      afterFailedOpen: (failures) => fast.afterFailedOpen(failures),
      afterLoss: (failures, recentLosses) => {
        const ms = fast.afterLoss(failures, recentLosses);
        scheduledReopens.push(ms);
        return ms;
      },
    };
    useTeardown(
      await startTunnel({
        provider: createLocaltunnelProvider({ host: first.url, ...FAST }),
        localPort: app.port,
        subdomain: 'turned01',
        backoff,
        onEvent: (e) => events.push(e),
      }),
      (h) => h.close(),
    );
    await first.close();
    // Restarted on the same port, now naming tunnels after the Host it is reached by.
    const second = await useTunnelServer({ port: first.port, publicUrlFrom: 'host-header' });
    await vi.waitFor(() => expect(events.some((e) => e.type === 'reopen-failed')).toBe(true), { timeout: 5000 });
    // The loss scheduled the one reopen; its final failure scheduled none (the event comes after that choice): no timer is left to try again.
    expect(scheduledReopens).toHaveLength(1);
    expect(events.filter((e) => e.type === 'reopen-failed')).toEqual([
      expect.objectContaining({ code: 'tunnel_unusable_url', isFinal: true, hint: expect.stringContaining('--tunnel-host') }),
    ]);
    expect(second.stats().registrations).toBe(1);
  });

  it('reached by a name: the tunnel opens under <id>.<that name> and carries requests', async () => {
    const server = await useTunnelServer({ publicUrlFrom: 'host-header' });
    const app = await useOkApp();
    // localhost is a name, so the server's answer is a URL (https://<id>.localhost:<port>).
    const provider = createLocaltunnelProvider({ host: `http://localhost:${server.port}`, ...FAST, localHost: '127.0.0.1' });
    const connection = useTeardown(await provider.open({ localPort: app.port, subdomain: 'named01' }), (c) => c.close());
    expect(connection.url).toBe(`https://named01.localhost:${server.port}`);
    expect((await requestVia(server, `named01.localhost:${server.port}`, { path: '/hi' })).body).toBe('app:/hi');
  });
});

describe('fact 2: the server advertises more sockets than it accepts', () => {
  it('keeps the 10 it accepts, carries requests, and stops re-trying the refused ones', async () => {
    const server = await useTunnelServer({ maxConnCount: 20, acceptedSockets: 10 });
    const app = await useOkApp();
    const lost: string[] = [];
    const logger = createRecordingLogger();
    const provider = createLocaltunnelProvider({ host: server.url, openTimeoutMs: 3000, lostAfterMs: 3000, socketRetryBaseMs: 50, socketRetryMaxMs: 200, logger });
    const retired = () => logger.lines.filter((line) => line.message === 'the tunnel server keeps refusing a socket; using fewer');
    const connection = useTeardown(await provider.open({ localPort: app.port, subdomain: 'tensockets' }), (c) => c.close());
    connection.onLost((reason) => lost.push(reason));
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    // Each of the 10 refused slots is tried twice, then given up: the client says so for each.
    await vi.waitFor(() => expect(retired()).toHaveLength(10), { timeout: 5000 });
    expect(retired().at(-1)!.fields).toEqual({ kept: 10, advertised: 20 });
    // 10 slots hold a socket and 10 are given up: none waits to connect again, so the count is final.
    expect(server.stats().refusedSockets).toBe(20);
    expect(connection.socketCount()).toBe(10);
    expect((await requestVia(server, tunnelHost(server, 'tensockets'), { path: '/still' })).body).toBe('app:/still');
    expect(server.stats().refusedSockets).toBe(20);
    expect(lost).toEqual([]);
  });
});

describe('fact 3: a name is held about 1 s after its sockets close', () => {
  it('a quick restart gets its own name back after the 1 s hold, not a stand-in', async () => {
    // The server's hold, the provider's waits and startTunnel's asks share one manual clock; it moves only
    // while no registration or close is under way (real I/O the clock must not outrun).
    const clock = createManualClock();
    const server = await useTunnelServer({ offlineGraceMs: 1000, clock });
    const app = await useOkApp();
    const counted = countedProvider(createLocaltunnelProvider({ host: server.url, ...FAST, clock }));
    const provider = counted.provider;
    const lastRun = await provider.open({ localPort: app.port, subdomain: 'held-name' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    await lastRun.close();
    // The server saw our sockets go: its hold of the name starts now.
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(0));
    const closedAt = clock.now();

    const events: TunnelEvent[] = [];
    let handle: Awaited<ReturnType<typeof startTunnel>> | undefined;
    void startTunnel({ provider, localPort: app.port, subdomain: 'held-name', onEvent: (e) => events.push(e), clock }).then((h) => (handle = useTeardown(h, (t) => t.close())));
    await driveClock(clock, { until: () => handle !== undefined, isSettled: counted.isSettled, withinMs: 5_000 });
    const tookMs = clock.now() - closedAt;
    expect(handle!.url).toBe('https://held-name.lt.median.test');
    expect(events).toEqual([expect.objectContaining({ type: 'opened', isHostnameChange: false })]);
    // It could not have it before the server let go, and it asked again soon after.
    expect(tookMs).toBeGreaterThanOrEqual(950);
    expect(tookMs).toBeLessThan(2500);
    // The stand-in it got first is given back and forgotten after the same 1 s hold (once the server saw its sockets go).
    const isStandInGone = () => server.clients().every((c) => c.id === 'held-name' || c.sockets === 0);
    await driveClock(clock, { until: () => server.clients().map((c) => c.id).join() === 'held-name', isSettled: () => counted.isSettled() && isStandInGone(), withinMs: 3_000 });
    expect(server.clients().map((c) => c.id)).toEqual(['held-name']);
  });
});

/** The provider, counted: a registration or a close in flight is real work a manual clock waits for. */
function countedProvider(real: TunnelProvider): { provider: TunnelProvider; isSettled: () => boolean } {
  let inFlight = 0;
  const counting = async <T>(work: () => Promise<T>): Promise<T> => {
    inFlight += 1;
    try {
      return await work();
    } finally {
      inFlight -= 1;
    }
  };
  const provider: TunnelProvider = {
    name: real.name,
    open: (request, options) =>
      counting(async () => {
        const connection = await real.open(request, options);
        return Object.assign(Object.create(connection) as TunnelConnection, { close: () => counting(() => connection.close()) });
      }),
  };
  return { provider, isSettled: () => inFlight === 0 };
}

describe('fact 4: answers for a host without a client', () => {
  it("the server's own 404, or a front proxy's 502/503/504 page", async () => {
    const server = await useTunnelServer();
    expect((await requestVia(server, tunnelHost(server, 'nobody'))).status).toBe(404);
    for (const status of [502, 503, 504] as const) {
      server.setFrontProxy({ status });
      const answer = await requestVia(server, tunnelHost(server, 'nobody'));
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('text/html');
    }
    server.setFrontProxy(null);
    expect((await requestVia(server, tunnelHost(server, 'nobody'))).status).toBe(404);
  });

  it('a wedged client keeps its sockets but its requests are not forwarded: they hang, or get the front proxy answer', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    useTeardown(await provider.open({ localPort: app.port, subdomain: 'wedged' }), (c) => c.close());
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.setForwarding('wedged', false);
    await expect(requestVia(server, tunnelHost(server, 'wedged'), { timeoutMs: 300 })).rejects.toThrow(/no answer/);
    server.setFrontProxy({ status: 504 });
    expect((await requestVia(server, tunnelHost(server, 'wedged'))).status).toBe(504);
    expect(server.clients()[0]?.sockets).toBe(10);

    server.setForwarding('wedged', true);
    expect((await requestVia(server, tunnelHost(server, 'wedged'), { path: '/back' })).body).toBe('app:/back');
  });
});
