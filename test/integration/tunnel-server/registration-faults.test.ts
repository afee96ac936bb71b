import localtunnel from 'localtunnel';
import { describe, expect, it, vi } from 'vitest';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { requestVia, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import type { RegistrationFault } from '../../../src/tunnel-server/index.js';

describe('tunnel server registration faults', () => {
  it.each<[string, RegistrationFault, number]>([
    ['an error status', { status: 500 }, 500],
    ['a 429', { status: 429 }, 429],
  ])('answers %s to registrations while the fault is set', async (_name, fault, status) => {
    const server = await useTunnelServer();
    server.setRegistrationFault(fault);
    const answer = await requestVia(server, `127.0.0.1:${server.port}`, { path: '/?new' });
    expect(answer.status).toBe(status);
    expect(server.clients()).toEqual([]);
  });

  it('answers garbage that is not JSON', async () => {
    const server = await useTunnelServer();
    server.setRegistrationFault('garbage');
    const answer = await requestVia(server, `127.0.0.1:${server.port}`, { path: '/some-name' });
    expect(answer.status).toBe(200);
    expect(() => JSON.parse(answer.body) as unknown).toThrow();
  });

  // The real client retries a failed registration every second, forever; it
  // only settles once the fault is lifted, which is how these tests end it.
  it.each<[string, RegistrationFault]>([
    ['500', { status: 500 }],
    ['garbage', 'garbage'],
    ['stall', 'stall'],
  ])('the real client keeps retrying through a %s fault and registers once it is lifted', async (_name, fault) => {
    const server = await useTunnelServer();
    const app = await useHttpServer((_req, res) => res.end('ok'));
    server.setRegistrationFault(fault);
    let settled = false;
    const opening = localtunnel({ port: app.port, host: server.url, subdomain: 'faulty' }).then((tunnel) => {
      settled = true;
      tunnel.on('error', () => undefined);
      return useTeardown(tunnel, (t) => t.close());
    });
    await vi.waitFor(() => expect(server.stats().registrations).toBeGreaterThanOrEqual(fault === 'stall' ? 1 : 2), { timeout: 5000 });
    expect(settled).toBe(false);

    server.setRegistrationFault(null);
    const tunnel = await opening;
    expect(tunnel.url).toBe('https://faulty.lt.median.test');
  });
});
