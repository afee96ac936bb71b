import { describe, expect, it, vi } from 'vitest';
import {
  HEALTH_MARKER_HEADER,
  createLocaltunnelProvider,
  startTunnel,
  type HealthProbe,
  type StartTunnelOptions,
  type TunnelEvent,
  type TunnelProvider,
} from '../../../src/tunnel/index.js';
import type { TunnelServer } from '../../../src/tunnel-server/index.js';
import { driveClock } from '../../helpers/drive-clock.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, tunnelHost, tunnelServerProbe, useTunnelServer } from '../../helpers/use-tunnel-server.js';

/**
 * A tunnel that dies silently: the server keeps our sockets open but no
 * longer passes requests down them (a laptop that slept, a NAT that forgot the
 * flow, a wedged server). Only the probe can tell; the first test uses
 * startTunnel's default probe timing on a manual clock, the goal being:
 * noticed and reopening within 30 s (the real-time check of it is
 * test/e2e/tunnel/dead-tunnel.test.ts).
 */
const INSTANCE = 'inst-dead-1';

/** Stands in for the proxy: answers its health path with the marker (its instance id), anything else as the app. */
async function useMarkedApp() {
  return useHttpServer((req, res) => {
    if (req.url === '/__median-dev/health') res.setHeader(HEALTH_MARKER_HEADER, INSTANCE);
    res.end(`app:${req.url}`);
  });
}

async function useDyingTunnel(server: TunnelServer, localPort: number, name: string, options: Partial<StartTunnelOptions> = {}) {
  const clock = options.clock;
  const events: Array<TunnelEvent & { at: number }> = [];
  let probes = 0;
  let healthyProbes = 0;
  let opensInFlight = 0;
  /** Probes not settled yet, by their signal: one not aborted waits for its answer or its timeout. */
  const probing = new Set<AbortSignal>();
  const real = tunnelServerProbe(server, { instanceId: INSTANCE });
  const probe: HealthProbe = async (url, probeOptions) => {
    probes += 1;
    probing.add(probeOptions.signal);
    try {
      const result = await real(url, probeOptions);
      if (result.kind === 'answered' && result.isFromProxy) healthyProbes += 1;
      return result;
    } finally {
      probing.delete(probeOptions.signal);
    }
  };
  // The real provider, counted: a registration in flight is real work the clock waits for.
  const localtunnel = createLocaltunnelProvider({ host: server.url, openTimeoutMs: 3000, lostAfterMs: 3000 });
  const provider: TunnelProvider = {
    name: localtunnel.name,
    async open(request, openOptions) {
      opensInFlight += 1;
      try {
        return await localtunnel.open(request, openOptions);
      } finally {
        opensInFlight -= 1;
      }
    },
  };
  const handle = useTeardown(
    await startTunnel({
      provider,
      localPort,
      subdomain: name,
      probe,
      onEvent: (event) => events.push({ ...event, at: clock ? clock.now() : Date.now() }),
      ...options,
    }),
    (h) => h.close(),
  );
  return {
    handle,
    events,
    probes: () => probes,
    healthyProbes: () => healthyProbes,
    /**
     * No registration in flight, and no probe the loopback server is about to
     * answer: with `isWedged`, a probe that was not stopped hangs until its timeout.
     */
    isSettled: (isWedged: boolean) => opensInFlight === 0 && [...probing].every((signal) => isWedged && !signal.aborted),
  };
}

describe('dead-tunnel detection', () => {
  it('a wedged tunnel (sockets open, nothing forwarded, requests hang) is down within 30 s and back under its own name', async () => {
    const clock = createManualClock();
    // The loopback server's own clock: it holds a name for a second after its sockets closed, moved on below once it saw them go.
    const serverClock = createManualClock();
    const server = await useTunnelServer({ clock: serverClock });
    const app = await useMarkedApp();
    const { events, healthyProbes, isSettled } = await useDyingTunnel(server, app.port, 'wedged-one', { clock });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    // The worst moment to wedge: right after the idle tunnel proved alive (a healthy probe, 24 s after it opened).
    await driveClock(clock, { until: () => healthyProbes() === 1, isSettled: () => isSettled(false), withinMs: 25_000 });
    const wedgedAt = clock.now();
    server.setForwarding('wedged-one', false);
    await driveClock(clock, { until: () => events.some((e) => e.type === 'down'), isSettled: () => isSettled(true), withinMs: 33_000 });
    const down = events.find((e) => e.type === 'down')!;
    expect(down).toMatchObject({ reason: 'probe-failed', message: expect.stringMatching(/no answer/) });
    expect(down.at - wedgedAt).toBeLessThan(30_000);

    // The loopback server holds the name for its offline grace (1 s on its clock) after our old sockets closed.
    await vi.waitFor(() => expect(server.clients().find((c) => c.id === 'wedged-one')?.sockets).toBe(0), { timeout: 5_000 });
    serverClock.advance(1_000);
    expect(server.clients().map((c) => c.id)).not.toContain('wedged-one');
    await driveClock(clock, { until: () => events.filter((e) => e.type === 'opened').length === 2, isSettled: () => isSettled(false), withinMs: 8_000 });
    expect(events.at(-1)).toMatchObject({ type: 'opened', url: 'https://wedged-one.lt.median.test', isHostnameChange: false });
    expect((await requestVia(server, tunnelHost(server, 'wedged-one'), { path: '/again' })).body).toBe('app:/again');
  });

  it('sleep and wake: a gap in the clock is noticed at the next tick, down as woke, reopened at once under its own name', async () => {
    const clock = createManualClock();
    const server = await useTunnelServer();
    const app = await useMarkedApp();
    const { events, isSettled } = await useDyingTunnel(server, app.port, 'sleepy-one', { clock });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    // Stopped 16 s (the 10 s tick it overlaps comes more than the 5 s late a tick may be): meanwhile the server
    // forgets us; our sockets stay open. (A machine's sleep is seen by its wall clock instead: wake-detector.test.ts.)
    server.forgetClientKeepingSockets('sleepy-one');
    clock.stall(16_000);
    await driveClock(clock, { until: () => events.filter((e) => e.type === 'opened').length === 2, isSettled: () => isSettled(false), withinMs: 1_000 });
    const down = events.find((e) => e.type === 'down')!;
    expect(down).toMatchObject({ reason: 'woke', message: expect.stringMatching(/did not run for 16(\.\d)? s/) });
    // Reopened at once: no backoff, no quick-reopen wait.
    expect(events.at(-1)!.at - down.at).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'opened', url: 'https://sleepy-one.lt.median.test', isHostnameChange: false });
    expect((await requestVia(server, tunnelHost(server, 'sleepy-one'), { path: '/awake' })).body).toBe('app:/awake');
  });

  it('a front proxy answering 502 for a client the server forgot (our sockets still open) is a miss: down, then reopened', async () => {
    const clock = createManualClock();
    const server = await useTunnelServer();
    const app = await useMarkedApp();
    const { events, isSettled } = await useDyingTunnel(server, app.port, 'forgot-me', { probeIntervalMs: 200, clock });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.setFrontProxy({ status: 502 });
    server.forgetClientKeepingSockets('forgot-me');
    await driveClock(clock, { until: () => events.some((e) => e.type === 'down'), isSettled: () => isSettled(false), withinMs: 5_000 });
    expect(events.find((e) => e.type === 'down')).toMatchObject({ reason: 'probe-failed', message: expect.stringMatching(/got 502/) });
    await driveClock(clock, { until: () => events.filter((e) => e.type === 'opened').length === 2, isSettled: () => isSettled(false), withinMs: 5_000 });
    expect(events.at(-1)).toMatchObject({ type: 'opened', isHostnameChange: false });
  });

  it('a busy tunnel is not probed (calls prove it alive); an idle one is', async () => {
    const clock = createManualClock();
    const server = await useTunnelServer();
    const app = await useMarkedApp();
    const logger = createRecordingLogger();
    const { probes, events, isSettled } = await useDyingTunnel(server, app.port, 'busy-one', { probeIntervalMs: 300, logger, clock });
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    const skippedLooks = () => logger.messages('debug').filter((m) => m === 'tunnel busy: not probed').length;

    // Calls one after another until five of the tunnel's scheduled looks (every half interval, 150 ms on the clock) found them and sent no probe.
    const before = probes();
    const skippedBefore = skippedLooks();
    let calls = 0;
    const callingSince = Date.now();
    while (skippedLooks() - skippedBefore < 5) {
      expect((await requestVia(server, tunnelHost(server, 'busy-one'), { path: `/call${calls}` })).status).toBe(200);
      calls += 1;
      clock.advance(150);
      // A bound in time, not a wait: five looks are five calls, one between each two.
      expect(Date.now() - callingSince).toBeLessThan(10_000);
    }
    // (The first look may come before the first call.)
    expect(probes() - before).toBeLessThanOrEqual(1);

    // Idle: probed again.
    const idleFrom = probes();
    await driveClock(clock, { until: () => probes() - idleFrom >= 2, isSettled: () => isSettled(false), withinMs: 3_000 });
    expect(events.map((e) => e.type)).toEqual(['opened']);
  });
});
