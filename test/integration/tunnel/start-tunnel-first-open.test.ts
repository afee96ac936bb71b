import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider, startTunnel } from '../../../src/tunnel/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { FAST_PROVIDER, FAST_REOPEN, useOkApp, useTunnel } from '../../helpers/use-tunnel.js';

describe('startTunnel: the first open', () => {
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
    // The server's grace runs on its own clock, moved on below once the server saw the sockets go.
    const serverClock = createManualClock();
    const server = await useTunnelServer({ offlineGraceMs: 400, clock: serverClock });
    const app = await useOkApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER });
    const lastRun = await provider.open({ localPort: app.port, subdomain: 'my-project' });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    await lastRun.close();
    // Right after a restart the server still holds the name for its grace period.
    expect(server.clients().map((c) => c.id)).toEqual(['my-project']);
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(0));

    const starting = useTunnel(server, app.port, { subdomain: 'my-project', nameRetryBaseMs: 100 });
    // Granted a stand-in (the second registration), it asks again; meanwhile the grace runs out.
    await vi.waitFor(() => expect(server.stats().registrations).toBe(2));
    serverClock.advance(400);
    const { handle, events } = await starting;
    expect(handle.url).toBe('https://my-project.lt.median.test');
    expect(events).toEqual([expect.objectContaining({ type: 'opened', subdomain: 'my-project', isHostnameChange: false })]);
    expect(server.stats().registrations).toBeGreaterThanOrEqual(3);
    // The stand-in it got first is given back, and forgotten after the same grace.
    await vi.waitFor(() => expect(server.clients().every((c) => c.id === 'my-project' || c.sockets === 0)).toBe(true));
    serverClock.advance(400);
    expect(server.clients().map((c) => c.id)).toEqual(['my-project']);
    expect((await requestVia(server, tunnelHost(server, 'my-project'), { path: '/back' })).body).toBe('app:/back');
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
