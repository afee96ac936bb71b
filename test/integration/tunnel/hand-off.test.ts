import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLocaltunnelProvider } from '../../../src/tunnel/index.js';
import { findFreePort } from '../../../src/shared/free-port.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { echoThrough, useWebSocketEcho } from '../../helpers/websocket-echo.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useRecordingProxy } from '../proxy/proxy-harness.js';

/** Node keeps no public getter for TCP_NODELAY: net.Socket remembers what setNoDelay set under this symbol. */
function isNoDelay(socket: Duplex): boolean {
  const symbol = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kSetNoDelay');
  return symbol !== undefined && (socket as unknown as Record<symbol, unknown>)[symbol] === true;
}

const FAST = { openTimeoutMs: 3000, lostAfterMs: 300, socketRetryBaseMs: 20, socketRetryMaxMs: 100 };

/**
 * Tunnel sockets handed straight to the recording proxy's HTTP server
 * (`handOff`), with no second loopback connection to the proxy's port. The
 * `localPort` given here has nothing listening: every answer proves the hand-off.
 */
async function useHandedOffTunnel(name: string, proxyLimits: { headersTimeoutMs?: number; requestTimeoutMs?: number } = {}) {
  const server = await useTunnelServer();
  const app = await useHttpServer(async (req, res) => {
    const body = await readBody(req);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, bytes: body.length, sha: createHash('sha256').update(body).digest('hex') }));
  });
  const { proxy, waitForRecords } = await useRecordingProxy({ target: `http://127.0.0.1:${app.port}`, limits: proxyLimits });
  const provider = createLocaltunnelProvider({ host: server.url, ...FAST });
  /** Every tunnel socket handed to the proxy, in order. */
  const handed: Duplex[] = [];
  const handOff = (socket: Duplex) => {
    handed.push(socket);
    proxy.acceptConnection(socket);
  };
  const connection = useTeardown(await provider.open({ localPort: await findFreePort(), subdomain: name, handOff }), (c) => c.close());
  return { server, app, proxy, connection, waitForRecords, handed, host: tunnelHost(server, name) };
}

describe('tunnel sockets handed to the proxy (no second hop)', () => {
  it('carries requests and bodies of any size, each recorded, over kept-alive tunnel sockets', async () => {
    const { server, host, waitForRecords } = await useHandedOffTunnel('handed');
    const big = Buffer.alloc(1024 * 1024, 'x').toString();
    const answers = await Promise.all([
      requestVia(server, host, { path: '/api/median' }),
      requestVia(server, host, { method: 'POST', path: '/api/median', body: big }),
      ...Array.from({ length: 30 }, (_, i) => requestVia(server, host, { path: `/n${i}` })),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(JSON.parse(answers[1]!.body)).toEqual({ url: '/api/median', bytes: big.length, sha: createHash('sha256').update(big).digest('hex') });
    expect(await waitForRecords(32)).toHaveLength(32);
  });

  it('an idle tunnel socket is not timed out by the proxy: a request after the proxy’s request timeout is answered', async () => {
    const { server, host, proxy, handed } = await useHandedOffTunnel('idle', { headersTimeoutMs: 300, requestTimeoutMs: 300 });
    expect((await requestVia(server, host, { path: '/first' })).status).toBe(200);
    expect(handed.length).toBeGreaterThan(0);
    // A witness, idle from now on as the tunnel sockets are: a connection to the proxy's own port that sends
    // nothing. The proxy times it out (408, closed) once its 300 ms limit is over.
    const witness: Socket = useTeardown(connect({ host: '127.0.0.1', port: proxy.port }), (w) => w.destroy());
    let witnessGot = '';
    witness.on('data', (chunk) => (witnessGot += String(chunk)));
    await vi.waitFor(() => expect(witness.closed).toBe(true), { timeout: 5000 });
    expect(witnessGot).toMatch(/^HTTP\/1\.1 408/);
    // The handed tunnel sockets were idle at least as long, and the proxy closed none of them.
    expect(handed.filter((socket) => socket.destroyed)).toEqual([]);
    const later = await requestVia(server, host, { path: '/later' });
    expect(later.status).toBe(200);
    expect(JSON.parse(later.body)).toMatchObject({ url: '/later' });
  });

  it('a handed socket writes without Nagle’s delay, as the HTTP server’s accepted sockets do', async () => {
    const { server, host, handed } = await useHandedOffTunnel('nodelay');
    expect((await requestVia(server, host)).status).toBe(200);
    expect(handed.length).toBeGreaterThan(0);
    expect(handed.map(isNoDelay)).toEqual(handed.map(() => true));
  });

  it('passes WebSocket upgrades through to the dev server', async () => {
    const { server, app } = await useHandedOffTunnel('upgrades');
    useWebSocketEcho(app);
    expect(await echoThrough(server.port, tunnelHost(server, 'upgrades'), '/hmr')).toBe('echo:hello');
  });

  it('after the proxy closed, a handed socket is destroyed, not served', async () => {
    const { server, host, proxy } = await useHandedOffTunnel('closing');
    expect((await requestVia(server, host)).status).toBe(200);
    await proxy.close();
    const answer = await requestVia(server, host, { timeoutMs: 2000 }).catch((error: Error) => error);
    expect(answer instanceof Error ? 'failed' : answer.status).not.toBe(200);
  });
});
