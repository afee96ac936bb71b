import { request } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createForwarder, type ForwardHandlers, type UpstreamAnswer } from '../../../src/proxy/http-proxy.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A request to `url` made by a plain client (not the forwarder). */
function plainRequest(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(url, (res) => res.resume().on('end', resolve)).on('error', reject).end();
  });
}

describe('the forwarder knows its own connections', () => {
  it('by both ends: the one it opened to the target, not another caller on the same server', async () => {
    const arrived: Socket[] = [];
    const forwarder = useTeardown(createForwarder(), (f) => f.close());
    let forwardedTo: Socket | undefined;
    // The server both forwards (as the proxy does) and is the target: a request it forwards comes back to it.
    const server = await useHttpServer((req, res) => {
      arrived.push(req.socket);
      if (req.url === '/through') {
        req.url = '/back';
        const answered = new Promise<UpstreamAnswer>((resolve, reject) => {
          const handlers: ForwardHandlers = { onUpstreamRequest: () => undefined, onResponse: resolve, onError: reject };
          forwarder.forward(req, new URL(server.url), handlers);
        });
        answered.then(
          (answer) => {
            answer.resume();
            res.end('through');
          },
          () => res.destroy(),
        );
        return;
      }
      if (req.url === '/back') forwardedTo = req.socket;
      res.end('ok');
    });

    await plainRequest(`${server.url}/through`);
    await vi.waitFor(() => expect(forwardedTo).toBeDefined());

    expect(forwarder.isOwnConnection(forwardedTo!)).toBe(true);
    expect(forwarder.isOwnConnection(arrived[0]!)).toBe(false);
    await plainRequest(`${server.url}/other`);
    expect(forwarder.isOwnConnection(arrived.at(-1)!)).toBe(false);
  });
});
