import { describe, expect, it, vi } from 'vitest';
import { HEALTH_MARKER_HEADER, type HealthProbe, type HealthProbeResult } from '../../../src/tunnel/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { tunnelServerProbe, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useOkApp, useTunnel } from '../../helpers/use-tunnel.js';

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

  it('probes /__median-dev/health through the public URL and stays open while the proxy answers with its marker', async () => {
    const server = await useTunnelServer();
    const seen: string[] = [];
    // Stands in for the proxy: it answers the health path with the marker header holding its instance id.
    const app = await useHttpServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader(HEALTH_MARKER_HEADER, 'inst-1');
      res.end('ok');
    });
    const real = tunnelServerProbe(server, { instanceId: 'inst-1' });
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

  it('goes down after two misses in a row (an answer without our marker, whatever its status), and reopens under its own name', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    const missing = (status: number): HealthProbeResult => ({ kind: 'answered', status });
    const ours: HealthProbeResult = { kind: 'answered', status: 200, isFromProxy: true };
    const { probe, urls } = scriptedProbe([missing(404), ours, missing(200), missing(502), ...Array.from({ length: 50 }, () => ours)]);
    const tunnel = await useTunnel(server, app.port, { subdomain: 'zombie', probeIntervalMs: 20, probe, nameRetryBaseMs: 50 });

    const down = await tunnel.next('down');
    expect(down).toMatchObject({ reason: 'probe-failed', message: expect.stringMatching(/got 502 from something other than this median-dev/) });
    expect(urls.length).toBeGreaterThanOrEqual(4);
    expect(urls[0]).toBe('https://zombie.lt.median.test/__median-dev/health');
    // The old registration held the name for a moment; the reopen asked again for it and got it.
    const reopened = await tunnel.next('opened');
    expect(reopened).toMatchObject({ requestedSubdomain: 'zombie', isHostnameChange: false, url: 'https://zombie.lt.median.test' });
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

  it('counts a probe that throws, or hangs past its timeout and grace, as unreachable', async () => {
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
