import localtunnel from 'localtunnel';
import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import type { TunnelServer } from '../../../src/tunnel-server/index.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';

const ROUTE_PATH = '/api/median';

/** The real localtunnel client, forwarding `subdomain` to a local port; closed when the test ends. */
async function useLocaltunnel(server: TunnelServer, port: number, subdomain: string): Promise<string> {
  const tunnel = await localtunnel({ port, host: server.url, subdomain, local_host: '127.0.0.1' });
  tunnel.on('error', () => {
    /* The client reports dropped sockets here; without a listener it would crash the worker. */
  });
  useTeardown(tunnel, (t) => t.close());
  return tunnel.url;
}

describe('emulator: syncs and calls through the loopback tunnel and the real localtunnel client', () => {
  it('connects from the route itself, syncs and calls through the public tunnel hostname', async () => {
    const tunnelServer = await useTunnelServer();
    const { emulator, client } = await useEmulator({ resolve: (hostname) => tunnelServer.resolve(hostname) });
    const toolsUrl = `${tunnelServer.publicUrlFor('shopdev')}${ROUTE_PATH}`;
    const route = useTeardown(
      await startToolRouteServer({ port: 0, key: emulator.key, apiUrl: emulator.url, toolsUrl, tools: createDemoTools() }),
      (r) => r.close(),
    );
    const publicUrl = await useLocaltunnel(tunnelServer, route.port, 'shopdev');
    expect(`${publicUrl}${ROUTE_PATH}`).toBe(toolsUrl);
    expect(toolsUrl.startsWith('https://')).toBe(true);

    // Open the route once with the Bearer key: it connects itself to the emulator.
    const opened = await fetch(route.url, { headers: { authorization: `Bearer ${emulator.key}` } });
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({ connected: true, endpoint: toolsUrl, tools: 7 });

    const [pending] = await client.listEndpoints();
    expect(pending?.url).toBe(toolsUrl);
    const synced = await client.waitForSync(pending!.id, { intervalMs: 20 });
    expect(synced).toMatchObject({ status: 'synced', error: null });
    expect(synced.tools.map((t) => t.name)).toEqual(createDemoTools().map((t) => t.name));

    const call = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    expect(call).toMatchObject({ endpointUrl: toolsUrl, status: 200, verdict: { kind: 'answered' } });
  });

  it('a new tunnel hostname clashes as a new endpoint; Change endpoint moves the old one and keeps switches', async () => {
    const tunnelServer = await useTunnelServer();
    const { emulator, client } = await useEmulator({ resolve: (hostname) => tunnelServer.resolve(hostname) });
    const route = useTeardown(
      await startToolRouteServer({ port: 0, key: emulator.key, apiUrl: emulator.url, tools: createDemoTools() }),
      (r) => r.close(),
    );
    const oldUrl = `${await useLocaltunnel(tunnelServer, route.port, 'shopold')}${ROUTE_PATH}`;
    const old = await client.connect(oldUrl);
    expect((await client.waitForSync(old.id, { intervalMs: 20 })).status).toBe('synced');
    await client.setToolEnabled(old.id, 'refundOrder', false);

    const newUrl = `${await useLocaltunnel(tunnelServer, route.port, 'shopnew')}${ROUTE_PATH}`;
    const fresh = await client.connect(newUrl);
    expect(await client.waitForSync(fresh.id, { intervalMs: 20 })).toMatchObject({
      status: 'failed',
      error: `The tool name "orderStatus" already comes from ${oldUrl}. Tool names have to be unique across every endpoint.`,
    });

    await client.removeEndpoint(fresh.id);
    const changed = await client.changeEndpoint(old.id, newUrl);
    expect(changed).toMatchObject({ id: old.id, url: newUrl, status: 'synced' });
    expect(changed.tools.find((t) => t.name === 'refundOrder')).toEqual({ name: 'refundOrder', enabled: false });
    expect(changed.tools.find((t) => t.name === 'orderStatus')).toEqual({ name: 'orderStatus', enabled: true });
  });
});
