import { Server, type AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useRealClient } from './real-localtunnel.js';

async function useOkApp() {
  return useHttpServer((_req, res) => res.end('app says hi'));
}

/**
 * Whether a listener of this test's own thread is on `port`. A closed
 * listener is checked here, not by connecting to its port: a port freed by a
 * listen on port 0 is the next listener's to take, and with several test
 * files at once another file's server took one (a full run saw "connected"
 * where a refused connection was expected). Node lists a thread's open
 * handles only through `process._getActiveHandles()` (undocumented, in every
 * Node since 0.x); a listening `net.Server` is one of them.
 */
function listensHere(port: number): boolean {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.some((handle) => handle instanceof Server && handle.listening && (handle.address() as AddressInfo | null)?.port === port);
}

describe('tunnel server: dropping, forgetting and refusing clients', () => {
  it('dropClient destroys the sockets; the real client reconnects under the same name', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const client = await useRealClient(server, app.port, 'dropped');
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));

    server.dropClient('dropped');
    await vi.waitFor(() => expect(server.clients()).toEqual([{ id: 'dropped', url: client.url, sockets: 10 }]));
    expect((await requestVia(server, tunnelHost(server, 'dropped'))).body).toBe('app says hi');
    expect(server.stats().registrations).toBe(1);
  });

  it('dropClient with forget unregisters it: 404, its listener closed, and the real client never registers again', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    const client = await useRealClient(server, app.port, 'forgotten');
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    const status = await requestVia(server, `127.0.0.1:${server.port}`, { path: '/api/tunnels/forgotten/status' });
    expect(JSON.parse(status.body)).toEqual({ connected_sockets: 10 });

    server.dropClient('forgotten', { forget: true });
    expect(server.clients()).toEqual([]);
    expect((await requestVia(server, tunnelHost(server, 'forgotten'))).status).toBe(404);
    // The package's known flaw: its reconnects are refused and it only reports errors.
    await vi.waitFor(() => expect(client.errors.length).toBeGreaterThan(0));
    expect(client.errors[0]?.message).toMatch(/connection refused/);
    expect(server.stats().registrations).toBe(1);
  });

  it('forgets a client whose sockets are all gone, after the grace period', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const app = await useOkApp();
    const client = await useRealClient(server, app.port, 'leaving');
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    const { port } = await registrationOf(server, 'other-one');
    expect(listensHere(port)).toBe(true);

    client.tunnel.close();
    await vi.waitFor(() => expect(server.clients().map((c) => c.id)).not.toContain('leaving'));
    // A registration no client ever connects to is forgotten too, and its listener closed.
    await vi.waitFor(() => expect(server.clients()).toEqual([]));
    expect(listensHere(port)).toBe(false);
  });

  it('refuseName makes the next registration for that name get another id, once', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    server.refuseName('wanted');
    const refused = await useRealClient(server, app.port, 'wanted');
    expect(refused.id).not.toBe('wanted');
    expect(refused.url).toBe(server.publicUrlFor(refused.id));

    const granted = await useRealClient(server, app.port, 'wanted');
    expect(granted.id).toBe('wanted');
  });

  it('close() ends every listener and socket, and is idempotent', async () => {
    const server = await useTunnelServer();
    const app = await useOkApp();
    await useRealClient(server, app.port, 'closing');
    const { port } = await registrationOf(server, 'raw-client');
    expect([listensHere(server.port), listensHere(port)]).toEqual([true, true]);

    await Promise.all([server.close(), server.close()]);
    await server.close();
    expect(server.clients()).toEqual([]);
    expect([listensHere(server.port), listensHere(port)]).toEqual([false, false]);
  });
});

async function registrationOf(server: Awaited<ReturnType<typeof useTunnelServer>>, name: string) {
  const answer = await requestVia(server, `127.0.0.1:${server.port}`, { path: `/${name}` });
  return JSON.parse(answer.body) as { id: string; port: number };
}
