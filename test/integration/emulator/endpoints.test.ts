import { refusedOrigin } from '../../helpers/refused-port.js';
import { describe, expect, it } from 'vitest';
import { createMedianApiClient } from '../../../src/median/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';

describe('emulator: Change endpoint, switches, remove', () => {
  it('keeps a switched-off tool off across Change endpoint, and switches new tools on', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/old-tunnel', { body: manifestOf('orderStatus', 'refundOrder') });
    route.serve('/new-tunnel', { body: manifestOf('orderStatus', 'refundOrder', 'lookupCustomer') });
    const connected = await client.connect(route.url('/old-tunnel'));
    await client.waitForSync(connected.id, { intervalMs: 10 });
    const switched = await client.setToolEnabled(connected.id, 'refundOrder', false);
    expect(switched.tools).toEqual([
      { name: 'orderStatus', enabled: true },
      { name: 'refundOrder', enabled: false },
    ]);

    // Change endpoint answers once its sync finished.
    const changed = await client.changeEndpoint(connected.id, route.url('/new-tunnel'));
    expect(changed).toMatchObject({
      id: connected.id,
      url: route.url('/new-tunnel'),
      status: 'synced',
      tools: [
        { name: 'orderStatus', enabled: true },
        { name: 'refundOrder', enabled: false },
        { name: 'lookupCustomer', enabled: true },
      ],
    });
    expect(changed.createdAt).toBe(connected.createdAt);
    expect(route.requests.filter((r) => r.path === '/new-tunnel')).toHaveLength(1);
  });

  it('answers tool_not_found for a switch on a tool the endpoint does not serve', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/r', { body: manifestOf('orderStatus') });
    const connected = await client.connect(route.url('/r'));
    await client.waitForSync(connected.id, { intervalMs: 10 });
    await expect(client.setToolEnabled(connected.id, 'nope', false)).rejects.toMatchObject({
      code: 'tool_not_found',
      details: { status: 404 },
    });
  });

  it('removes an endpoint, which frees its tool names for another', async () => {
    const { client, emulator } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/a', { body: manifestOf('orderStatus') });
    route.serve('/b', { body: manifestOf('orderStatus') });
    const a = await client.connect(route.url('/a'));
    await client.waitForSync(a.id, { intervalMs: 10 });
    const b = await client.connect(route.url('/b'));
    expect((await client.waitForSync(b.id, { intervalMs: 10 })).status).toBe('failed');
    expect(await client.removeEndpoint(a.id)).toEqual({ removed: a.id });
    expect(emulator.endpoints().map((e) => e.id)).toEqual([b.id]);
    expect(await client.syncById(b.id)).toMatchObject({ id: b.id, status: 'synced' });
  });

  it('lists endpoints in the order they were connected, with the documented shape', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/a', { body: manifestOf('a1') });
    const a = await client.connect(route.url('/a'));
    const b = await client.connect(route.url('/b'));
    await client.waitForSync(a.id, { intervalMs: 10 });
    await client.waitForSync(b.id, { intervalMs: 10 });
    const list = await client.listEndpoints();
    expect(list.map((e) => e.id)).toEqual([a.id, b.id]);
    expect(list[0]).toEqual({
      id: a.id,
      url: route.url('/a'),
      status: 'synced',
      error: null,
      tools: [{ name: 'a1', enabled: true }],
      createdAt: a.createdAt,
      syncedAt: expect.any(String),
    });
    expect(list[1]).toMatchObject({ status: 'failed', error: 'The endpoint answered 404.', syncedAt: null, tools: [] });
  });
});

describe('Median API client: transport errors', () => {
  it('median_unreachable when nothing listens at MEDIAN_API_URL', async () => {
    const client = createMedianApiClient({ baseUrl: await refusedOrigin(), key: 'median_key_' + 'a'.repeat(32), timeoutMs: 2_000 });
    await expect(client.listEndpoints()).rejects.toMatchObject({ code: 'median_unreachable' });
  });

  it('median_timeout when the API does not answer in time', async () => {
    const server = await useHttpServer(() => {
      /* never answers: the client's timeout has to fire */
    });
    const client = createMedianApiClient({ baseUrl: server.url, key: 'median_key_' + 'a'.repeat(32), timeoutMs: 150 });
    await expect(client.listEndpoints()).rejects.toMatchObject({ code: 'median_timeout' });
  });

  it.each([
    ['a page', 200, '<html>hi</html>'],
    ['a wrong shape', 200, JSON.stringify({ endpoints: [{ id: 1 }] })],
    ['a 502 without an error body', 502, 'Bad gateway'],
  ])('median_bad_answer for %s', async (_name, status, body) => {
    const server = await useHttpServer((_req, res) => res.writeHead(status).end(body));
    const client = createMedianApiClient({ baseUrl: server.url, key: 'median_key_' + 'a'.repeat(32) });
    await expect(client.listEndpoints()).rejects.toMatchObject({ code: 'median_bad_answer', details: { status } });
  });

  it('waitForSync gives up with median_timeout while the endpoint stays pending', async () => {
    const { client } = await useEmulator({ limits: { syncTimeoutMs: 5_000 } });
    const route = await useManifestServer();
    route.serve('/slow', { body: manifestOf('a'), delayMs: 3_000 });
    const connected = await client.connect(route.url('/slow'));
    await expect(client.waitForSync(connected.id, { timeoutMs: 200, intervalMs: 20 })).rejects.toMatchObject({
      code: 'median_timeout',
    });
  });
});
