import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLocaltunnelProvider } from '../../../src/tunnel/index.js';
import { findFreePort } from '../../../src/shared/free-port.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { echoThrough, useWebSocketEcho } from '../../helpers/websocket-echo.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import { useRecordingProxy } from '../proxy/proxy-harness.js';

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
  const connection = useTeardown(
    await provider.open({ localPort: await findFreePort(), subdomain: name, handOff: (socket) => proxy.acceptConnection(socket) }),
    (c) => c.close(),
  );
  return { server, app, proxy, connection, waitForRecords, host: tunnelHost(server, name) };
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
    const { server, host } = await useHandedOffTunnel('idle', { headersTimeoutMs: 200, requestTimeoutMs: 300 });
    expect((await requestVia(server, host, { path: '/first' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // four request timeouts of idleness
    const later = await requestVia(server, host, { path: '/later' });
    expect(later.status).toBe(200);
    expect(JSON.parse(later.body)).toMatchObject({ url: '/later' });
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
