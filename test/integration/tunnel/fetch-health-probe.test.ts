import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HEALTH_MARKER_HEADER, createFetchHealthProbe, isReservedHostname } from '../../../src/tunnel/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';

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

  it('never asks DNS about reserved names (the loopback tunnel server’s .test hostnames): unreachable, no fetch', async () => {
    let fetched = 0;
    const countingFetch: typeof fetch = async (...args) => {
      fetched += 1;
      return fetch(...args);
    };
    const probe = createFetchHealthProbe({ fetch: countingFetch });
    for (const url of ['https://x.lt.median.test/__median-dev/health', 'http://a.localhost/h', 'https://b.example/h', 'https://c.invalid/h']) {
      expect(await probe(url, { signal: signal() })).toEqual({ kind: 'unreachable' });
    }
    expect(fetched).toBe(0);
    expect(isReservedHostname('https://shop.loca.lt/api/median')).toBe(false);
  });

  it('reports a refused connection as unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    expect(await createFetchHealthProbe()(`http://127.0.0.1:${port}/`, { signal: signal() })).toMatchObject({ kind: 'unreachable' });
  });
});
