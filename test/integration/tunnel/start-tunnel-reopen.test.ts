import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider } from '../../../src/tunnel/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { FAST_PROVIDER, useOkApp, useTunnel } from '../../helpers/use-tunnel.js';

describe('startTunnel: reopening after a loss', () => {
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
    const clock = createManualClock();
    const tunnel = await useTunnel(server, app.port, {
      subdomain: 'steady',
      reconnectBaseMs: 1000,
      reconnectMaxMs: 10_000,
      quickReopenMs: 50,
      flapWindowMs: 60_000,
      stableAfterMs: 10_000,
      // No wake tick: the reopen is the only timer on the clock while the tunnel is down.
      wakeJumpMs: 0,
      clock,
    });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    /** The wait the tunnel chose before its reopen, on its clock; then the clock moves on by it and the reopen happens. */
    const reopenTime = async () => {
      const down = tunnel.next('down');
      const reopened = tunnel.next('opened', 5000);
      server.dropClient('steady', { forget: true });
      await down;
      expect(clock.pendingTimers()).toBe(1);
      const waitMs = clock.nextTimerIn()!;
      clock.advance(waitMs);
      await reopened;
      await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
      return waitMs;
    };
    // Up 20 s (by the tunnel's clock) before each loss: not flapping, though the losses are 20 s apart.
    clock.advance(20_000);
    expect(await reopenTime()).toBeLessThan(700);
    clock.advance(20_000);
    expect(await reopenTime()).toBeLessThan(700);
    // Lost again right after it opened, within the flap window: the backoff (≥ 750 ms) applies.
    clock.advance(1_000);
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
});
