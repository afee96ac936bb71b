import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HEALTH_MARKER_HEADER, PROBE_TIMED_OUT, createFetchHealthProbe, findPublicRoute } from '../../../src/tunnel/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useTunnel } from '../../helpers/use-tunnel.js';

const signal = () => AbortSignal.timeout(5000);

describe('createFetchHealthProbe', () => {
  it("recognises the proxy's health answer, by body or by marker header", async () => {
    const app = await useHttpServer((req, res) => {
      if (req.url === '/marked') res.setHeader(HEALTH_MARKER_HEADER, '1');
      res.statusCode = req.url === '/marked' ? 503 : 200;
      res.end(JSON.stringify({ ok: true, service: 'median-dev', instance: 'i-1' }));
    });
    expect(await createFetchHealthProbe({ instanceId: 'i-1' })(`${app.url}/__median-dev/health`, { signal: signal() })).toEqual({
      kind: 'answered',
      status: 200,
      isFromProxy: true,
    });
    expect(await createFetchHealthProbe({ instanceId: 'i-2' })(`${app.url}/x`, { signal: signal() })).toMatchObject({ isFromProxy: false });
    expect(await createFetchHealthProbe()(`${app.url}/marked`, { signal: signal() })).toMatchObject({ status: 503, isFromProxy: true });
  });

  it('a name with no DNS here and no tunnel server to go through: unreachable, never fetched', async () => {
    let fetched = 0;
    const countingFetch: typeof fetch = async (...args) => {
      fetched += 1;
      return fetch(...args);
    };
    const probe = createFetchHealthProbe({ fetch: countingFetch, resolves: async () => false });
    for (const url of ['https://x.lt.median.test/__median-dev/health', 'https://shop.loca.lt/h']) {
      expect(await probe(url, { signal: signal() })).toMatchObject({ kind: 'unreachable' });
    }
    expect(fetched).toBe(0);
  });

  it('a name with no DNS here is probed through the tunnel server, with its Host: the reachability decides, not the suffix', async () => {
    const server = await useTunnelServer();
    // Stands in for the proxy behind the tunnel: the health answer with its marker.
    const app = await useHttpServer((_req, res) => {
      res.setHeader(HEALTH_MARKER_HEADER, 'i-1');
      res.end('{}');
    });
    await useTunnel(server, app.port, { subdomain: 'reach' });
    const probe = createFetchHealthProbe({ instanceId: 'i-1', tunnelHost: server.url });
    expect(await probe('https://reach.lt.median.test/__median-dev/health', { signal: signal() })).toEqual({ kind: 'answered', status: 200, isFromProxy: true });
    // A name the tunnel server does not serve: its own 404, not ours.
    expect(await probe('https://gone.lt.median.test/__median-dev/health', { signal: signal() })).toMatchObject({ kind: 'answered', status: 404, isFromProxy: false });
    // A wedged tunnel: the server takes the connection and never answers.
    server.setForwarding('reach', false);
    const timedOut = new AbortController();
    setTimeout(() => timedOut.abort(PROBE_TIMED_OUT), 300).unref();
    expect(await probe('https://reach.lt.median.test/__median-dev/health', { signal: timedOut.signal })).toEqual({ kind: 'no-answer' });
  });

  it('a name that resolves is fetched directly (the tunnel server is not asked)', async () => {
    const app = await useHttpServer((_req, res) => res.end(JSON.stringify({ ok: true, service: 'median-dev', instance: 'i-1' })));
    const route = await findPublicRoute(`http://localhost:${app.port}/`, { tunnelHost: 'http://127.0.0.1:9' });
    expect(route).toEqual({ kind: 'direct' });
    expect(await findPublicRoute('https://nowhere.lt.median.test/', { tunnelHost: 'http://127.0.0.1:9', resolves: async () => false })).toEqual({ kind: 'via', origin: 'http://127.0.0.1:9' });
    const probe = createFetchHealthProbe({ instanceId: 'i-1', tunnelHost: 'http://127.0.0.1:9' });
    expect(await probe(`http://localhost:${app.port}/__median-dev/health`, { signal: signal() })).toMatchObject({ kind: 'answered', isFromProxy: true });
  });

  it('reports a refused connection as unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    expect(await createFetchHealthProbe()(`http://127.0.0.1:${port}/`, { signal: signal() })).toMatchObject({ kind: 'unreachable' });
  });
});
