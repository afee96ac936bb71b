import { describe, expect, it, vi } from 'vitest';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { echoThrough, useWebSocketEcho } from '../../helpers/websocket-echo.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useRealClient } from './real-localtunnel.js';

/** A local app that echoes what reached it. */
async function useEchoApp() {
  return useHttpServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        method: req.method,
        url: req.url,
        host: req.headers.host,
        forwardedProto: req.headers['x-forwarded-proto'],
        body,
        localPort: req.socket.remotePort,
      }),
    );
  });
}

describe('tunnel server with the real localtunnel client', () => {
  it('registers a requested name and forwards requests for its host to the local app', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const client = await useRealClient(server, app.port, 'my-app');

    expect(client.url).toBe('https://my-app.lt.median.test');
    expect(server.publicUrlFor('my-app')).toBe(client.url);
    await vi.waitFor(() => expect(server.clients()).toEqual([{ id: 'my-app', url: client.url, sockets: 10 }]));

    const answer = await requestVia(server, 'my-app.lt.median.test', {
      method: 'POST',
      path: '/api/median?x=1',
      headers: { 'content-type': 'application/json' },
      body: '{"tool":"orderStatus"}',
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      method: 'POST',
      url: '/api/median?x=1',
      host: 'my-app.lt.median.test',
      forwardedProto: 'https',
      body: '{"tool":"orderStatus"}',
    });
    expect(client.errors).toEqual([]);
  });

  it('gives a random valid id for /?new and a taken name', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const fresh = await useRealClient(server, app.port);
    expect(fresh.id).toMatch(/^[a-z0-9][a-z0-9-]{2,62}$/);

    const first = await useRealClient(server, app.port, 'shared-name');
    const second = await useRealClient(server, app.port, 'shared-name');
    expect(first.id).toBe('shared-name');
    expect(second.id).not.toBe('shared-name');
    expect(second.id).toMatch(/^[a-z0-9][a-z0-9-]{2,62}$/);
    expect(server.stats().registrations).toBe(3);
  });

  it('keeps a tunnel socket alive across requests', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    await useRealClient(server, app.port, 'keep-alive');
    const host = tunnelHost(server, 'keep-alive');
    const one = JSON.parse((await requestVia(server, host)).body) as { localPort: number };
    const two = JSON.parse((await requestVia(server, host)).body) as { localPort: number };
    expect(two.localPort).toBe(one.localPort);
  });

  it('passes WebSocket upgrades through', async () => {
    const server = await useTunnelServer();
    const app = await useHttpServer((_req, res) => res.end('no'));
    useWebSocketEcho(app);
    await useRealClient(server, app.port, 'sockets');
    expect(await echoThrough(server.port, tunnelHost(server, 'sockets'))).toBe('echo:hello');
  });

  it('answers 404 JSON for a host no client holds', async () => {
    const server = await useTunnelServer();
    const answer = await requestVia(server, 'nobody-here.lt.median.test');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toHaveProperty('error');
  });

  it.each([['ab'], ['-leading'], ['UPPER'], ['under_score'], ['x'.repeat(64)]])('refuses the name %j with 403', async (name) => {
    const server = await useTunnelServer();
    const answer = await requestVia(server, `127.0.0.1:${server.port}`, { path: `/${name}` });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toHaveProperty('message');
    expect(server.clients()).toEqual([]);
  });

  it('resolves its domain and every subdomain to its loopback address', async () => {
    const server = await useTunnelServer({ domain: 'lt.example.test' });
    expect(server.resolve('abc.lt.example.test')).toEqual({ host: '127.0.0.1', port: server.port });
    expect(server.resolve('LT.example.test.')).toEqual({ host: '127.0.0.1', port: server.port });
    expect(server.resolve('example.test')).toBeUndefined();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('queues a request until a tunnel socket arrives, and answers 503 when none does', async () => {
    const server = await useTunnelServer({ queueTimeoutMs: 300, offlineGraceMs: 10_000 });
    const registration = JSON.parse((await requestVia(server, `127.0.0.1:${server.port}`, { path: '/queued' })).body) as {
      id: string;
      port: number;
      max_conn_count: number;
      url: string;
    };
    expect(registration).toEqual({ id: 'queued', port: expect.any(Number), max_conn_count: 10, url: 'https://queued.lt.median.test' });

    const refused = await requestVia(server, tunnelHost(server, 'queued'));
    expect(refused.status).toBe(503);

    // A raw socket that plays the client: it answers whatever arrives on it.
    const { connect } = await import('node:net');
    const late = requestVia(server, tunnelHost(server, 'queued'), { path: '/late' });
    const socket = useTeardown(connect(registration.port, '127.0.0.1'), (s) => s.destroy());
    socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    expect(await late).toMatchObject({ status: 200, body: 'ok' });
  });
});

