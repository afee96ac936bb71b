import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider } from '../../../src/tunnel/index.js';
import { waitForOnClock } from '../../helpers/drive-clock.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { tunnelServerProbe, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { FAST_PROVIDER, useOkApp, useTunnel } from '../../helpers/use-tunnel.js';

/** A minute on the clock: far past every backoff, probe and lost window. */
const A_MINUTE = 60_000;

describe('startTunnel: close', () => {
  it('close() leaves nothing: no timer on the clock, the server forgets the client and no reconnect follows', async () => {
    const clock = createManualClock();
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, {
      subdomain: 'closing',
      provider: createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER, clock }),
      probe: tunnelServerProbe(server),
      clock,
    });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    expect(clock.pendingTimers()).toBeGreaterThan(0);

    await Promise.all([tunnel.handle.close(), tunnel.handle.close()]);
    expect(tunnel.handle.isOpen).toBe(false);
    // The probe's look, the wake tick, the sockets' timers: all cancelled.
    expect(clock.pendingTimers()).toBe(0);
    await vi.waitFor(() => expect(server.clients()).toEqual([]));
    clock.advance(A_MINUTE);
    expect(server.stats().registrations).toBe(1);
    expect(tunnel.events.map((e) => e.type)).toEqual(['opened']);
  });

  it('close() while reopening stops the retries', async () => {
    const clock = createManualClock();
    const server = await useTunnelServer();
    const app = await useOkApp();
    const tunnel = await useTunnel(server, app.port, { subdomain: 'retrying', provider: createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER, clock }), clock });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    server.setRegistrationFault({ status: 500 });
    // Closed right when an attempt failed and the next one is only a timer,
    // so no registration is in flight and the count is exact.
    let after: number | undefined;
    const closed = new Promise<void>((resolve) => {
      tunnel.handle.on('reopen-failed', () => {
        after = server.stats().registrations;
        void tunnel.handle.close().then(resolve);
      });
    });
    server.dropClient('retrying', { forget: true });
    await waitForOnClock(clock, () => expect(after).toBeDefined());
    await closed;
    expect(after).toBeGreaterThanOrEqual(2);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(A_MINUTE);
    expect(server.stats().registrations).toBe(after);
    expect(tunnel.events.filter((e) => e.type === 'reopen-failed')).toHaveLength(1);
  });
});
