import { refusedPort } from '../../helpers/refused-port.js';
import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider, createNoTunnelProvider, type TunnelConnection } from '../../../src/tunnel/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';

const FAST = { openTimeoutMs: 3000, lostAfterMs: 300, socketRetryBaseMs: 20, socketRetryMaxMs: 100 };

async function useEchoApp() {
  return useHttpServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, body, localAddress: req.socket.localAddress }));
  });
}

function useConnection(connection: TunnelConnection): TunnelConnection {
  return useTeardown(connection, (c) => c.close());
}

describe('localtunnel provider against the loopback tunnel server', () => {
  it('opens a tunnel under the requested name and carries requests to 127.0.0.1:<localPort>', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    const connection = useConnection(await provider.open({ localPort: app.port, subdomain: 'shop-1a2b3c' }));

    expect(connection.url).toBe('https://shop-1a2b3c.lt.median.test');
    expect(connection.subdomain).toBe('shop-1a2b3c');
    await vi.waitFor(() => expect(server.clients()).toEqual([{ id: 'shop-1a2b3c', url: connection.url, sockets: 10 }]));
    expect(connection.socketCount()).toBe(10);

    const answer = await requestVia(server, tunnelHost(server, 'shop-1a2b3c'), { method: 'POST', path: '/api/median', body: '{"a":1}' });
    expect(JSON.parse(answer.body)).toEqual({
      method: 'POST',
      url: '/api/median',
      host: 'shop-1a2b3c.lt.median.test',
      body: '{"a":1}',
      localAddress: '127.0.0.1',
    });
  });

  it('answers 502 with a coded body when nothing listens on the local port', async () => {
    const server = await useTunnelServer();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    useConnection(await provider.open({ localPort: await refusedPort(), subdomain: 'nobody-home' }));
    const answer = await requestVia(server, tunnelHost(server, 'nobody-home'));
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'tunnel_local_unreachable' } });
  });

  it('gets a random id when the name is taken (the caller sees the difference)', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    useConnection(await provider.open({ localPort: app.port, subdomain: 'popular' }));
    const second = useConnection(await provider.open({ localPort: app.port, subdomain: 'popular' }));
    expect(second.subdomain).not.toBe('popular');
    expect(second.url).toBe(server.publicUrlFor(second.subdomain as string));
  });

  it('close() leaves nothing: the server forgets the client and no socket comes back', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    const connection = await provider.open({ localPort: app.port, subdomain: 'short-lived' });
    const lost = vi.fn();
    connection.onLost(lost);
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    await Promise.all([connection.close(), connection.close()]);
    await vi.waitFor(() => expect(server.clients()).toEqual([]));
    expect(connection.socketCount()).toBe(0);
    expect(lost).not.toHaveBeenCalled();
    expect(server.stats().registrations).toBe(1);
  });

  it('reports the connection lost when the server forgets it', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    const connection = useConnection(await provider.open({ localPort: app.port, subdomain: 'forgotten' }));
    const lost = new Promise<string>((resolve) => connection.onLost(resolve));
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.dropClient('forgotten', { forget: true });
    expect(await lost).toMatch(/socket/);
    expect(connection.socketCount()).toBe(0);
  });

  it('reports the loss at once, not after the lost window, when the server refuses the reconnect; also to a late listener', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST, lostAfterMs: 10_000 });
    const connection = useConnection(await provider.open({ localPort: app.port, subdomain: 'refused-again' }));
    const lost = new Promise<string>((resolve) => connection.onLost(resolve));
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    const droppedAt = Date.now();
    server.dropClient('refused-again', { forget: true });
    expect(await lost).toMatch(/refused/);
    expect(Date.now() - droppedAt).toBeLessThan(2000);
    const late = await new Promise<string>((resolve) => connection.onLost(resolve));
    expect(late).toMatch(/refused/);
  });

  it('keeps its sockets coming back, without a loss, when only the sockets are dropped', async () => {
    const server = await useTunnelServer();
    const app = await useEchoApp();
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
    const connection = useConnection(await provider.open({ localPort: app.port, subdomain: 'only-dropped' }));
    const lost = vi.fn();
    connection.onLost(lost);
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    server.dropClient('only-dropped');
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    expect((await requestVia(server, tunnelHost(server, 'only-dropped'))).status).toBe(200);
    expect(lost).not.toHaveBeenCalled();
  });

  it.each([
    ['a 500', { status: 500 }, 'tunnel_registration_refused'],
    ['a 403', { status: 403 }, 'tunnel_registration_refused'],
    ['garbage', 'garbage', 'tunnel_bad_registration'],
    ['a stall', 'stall', 'tunnel_open_timeout'],
  ] as const)('rejects %s registration (fault %o) with %s, once, within the timeout', async (_name, fault, code) => {
    const server = await useTunnelServer();
    server.setRegistrationFault(fault);
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST, openTimeoutMs: 400 });
    const started = Date.now();
    await expect(provider.open({ localPort: 1, subdomain: 'faulty' })).rejects.toMatchObject({ code });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.stats().registrations).toBe(1);
    expect(server.clients()).toEqual([]);
  });

  it('rejects with tunnel_server_unreachable when nothing listens at the tunnel host', async () => {
    const provider = createLocaltunnelProvider({ host: `http://127.0.0.1:${await refusedPort()}`, ...FAST });
    await expect(provider.open({ localPort: 1 })).rejects.toMatchObject({ code: 'tunnel_server_unreachable' });
  });

  it('rejects with tunnel_connect_failed when the tunnel port refuses every socket', async () => {
    const deadPort = await refusedPort();
    const fake = await useHttpServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'ghost', port: deadPort, max_conn_count: 3, url: 'https://ghost.lt.median.test' }));
    });
    const provider = createLocaltunnelProvider({ host: fake.url, ...FAST });
    await expect(provider.open({ localPort: 1, subdomain: 'ghost' })).rejects.toMatchObject({ code: 'tunnel_connect_failed' });
  });

  it('stops opening when the signal aborts, and when it was aborted before', async () => {
    const server = await useTunnelServer();
    server.setRegistrationFault('stall');
    const provider = createLocaltunnelProvider({ host: server.url, ...FAST, openTimeoutMs: 10_000 });
    const controller = new AbortController();
    const opening = provider.open({ localPort: 1, subdomain: 'aborted' }, { signal: controller.signal });
    await vi.waitFor(() => expect(server.stats().registrations).toBe(1));
    controller.abort();
    await expect(opening).rejects.toMatchObject({ code: 'tunnel_open_aborted' });

    await expect(provider.open({ localPort: 1 }, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'tunnel_open_aborted' });
    expect(server.stats().registrations).toBe(1);
  });

  it.each(['not a url', 'ftp://example.com', ''])('refuses the tunnel host %j with invalid_tunnel_host', (host) => {
    expect(() => createLocaltunnelProvider({ host })).toThrow(expect.objectContaining({ code: 'invalid_tunnel_host' }));
  });
});

describe('no-tunnel provider', () => {
  it('opens the given public origin as is and is never lost', async () => {
    const provider = createNoTunnelProvider({ publicUrl: 'https://dev.example.com/' });
    const connection = await provider.open({ localPort: 4141 });
    expect(provider.name).toBe('none');
    expect(connection.url).toBe('https://dev.example.com');
    expect(connection.subdomain).toBeUndefined();
    expect(connection.socketCount()).toBeUndefined();
    await connection.close();
  });

  it.each(['dev.example.com', 'https://dev.example.com/api/median', 'ftp://x.test'])('refuses --public-url %j', (publicUrl) => {
    expect(() => createNoTunnelProvider({ publicUrl })).toThrow(expect.objectContaining({ code: 'invalid_public_url' }));
  });
});
