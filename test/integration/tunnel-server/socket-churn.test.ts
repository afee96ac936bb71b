import { describe, expect, it, vi } from 'vitest';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { requestVia, tunnelHost, useTunnelServer } from '../../helpers/use-tunnel-server.js';
import type { SocketReuse, TunnelServer } from '../../../src/tunnel-server/index.js';
import { useRealClient } from './real-localtunnel.js';

/** `rounds` rounds of `inFlight` requests at once through the tunnel; every answer checked. */
async function sendInRounds(server: TunnelServer, id: string, rounds: number, inFlight: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(Array.from({ length: inFlight }, () => requestVia(server, tunnelHost(server, id))));
    for (const answer of answers) expect(answer.body).toBe('app says hi');
  }
}

/** The server in that mode, the real client with its 10 sockets open, and the connects so far. */
async function clientOn(socketReuse: SocketReuse, id: string): Promise<{ server: TunnelServer; accepted: number }> {
  const server = await useTunnelServer({ socketReuse });
  const app = await useHttpServer((_req, res) => res.end('app says hi'));
  await useRealClient(server, app.port, id);
  await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
  return { server, accepted: server.stats().socketConnects };
}

describe('tunnel server: socket reuse', () => {
  it('keeps the tunnel sockets by default: the real client never reconnects', async () => {
    const { server, accepted } = await clientOn('pool', 'kept');

    await sendInRounds(server, 'kept', 10, 16);
    expect(server.stats().socketConnects).toBe(accepted);
  });

  it("localtunnel-server's churn: one free socket kept, the others closed after their answer, and the real client reconnects", async () => {
    const { server, accepted } = await clientOn('localtunnel-server', 'churned');

    await sendInRounds(server, 'churned', 10, 16);
    // The client opens its 10 again. Here 3 connects per burst of 16 (under steady load at 16 in flight the real server and this mode both make ~0.8 per request: npm run bench:tunnel).
    await vi.waitFor(() => expect(server.clients()[0]?.sockets).toBe(10));
    expect(server.stats().socketConnects - accepted).toBeGreaterThanOrEqual(20);
  });

  it('one request at a time reuses the one free socket, as the real server does', async () => {
    const { server, accepted } = await clientOn('localtunnel-server', 'serial');

    await sendInRounds(server, 'serial', 30, 1);
    expect(server.stats().socketConnects).toBe(accepted);
  });
});
