import { describe, expect, it, vi } from 'vitest';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useOkApp, useTunnel } from '../../helpers/use-tunnel.js';

describe('startTunnel: close', () => {
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
});
