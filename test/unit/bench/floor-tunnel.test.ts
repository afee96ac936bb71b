import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFloorTunnel, type FloorMode } from '../../../bench/floor-tunnel.js';
import { SIGNATURE_HEADER, deriveToolSecret, signBody } from '../../../src/median/index.js';
import { requestVia, useTunnelServer } from '../../helpers/use-tunnel-server.js';

const KEY = 'mk_test_floorfloorfloorfloorfloor0';

/** The dev server the floors forward to: answers every call with its own JSON body. */
async function useRoute(): Promise<string> {
  const route = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      const body = JSON.stringify({ result: { path: req.url } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  route.listen(0, '127.0.0.1');
  await once(route, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => route.close(() => resolve())));
  return `http://127.0.0.1:${(route.address() as AddressInfo).port}`;
}

describe('the tunnel bench floors', () => {
  it.each<FloorMode>(['record', 'proxy'])('the %s floor relays a signed call through the tunnel to the dev server and back', async (mode) => {
    const tunnelServer = await useTunnelServer();
    const target = await useRoute();
    const floor = await startFloorTunnel({ mode, tunnelHost: tunnelServer.url, target, subdomain: `floor-${mode}-test`, medianKey: KEY });
    onTestFinished(() => floor.close());
    const body = JSON.stringify({ tool: 'orderStatus', toolCallId: 'call_floor0001', input: {}, context: {} });
    const answer = await requestVia(tunnelServer, new URL(floor.url).host, {
      method: 'POST',
      path: '/api/median',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(deriveToolSecret(KEY), Buffer.from(body), Date.now()) },
      body,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ result: { path: '/api/median' } });
    // Closed twice (the bench's own cleanup and the world's): the same promise, nothing closed again.
    expect(floor.close()).toBe(floor.close());
    await floor.close();
  });
});
