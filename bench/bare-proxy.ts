/**
 * The baseline: http-proxy-3 as its README sets it up, with a keep-alive
 * agent, and nothing else. (The bench's one adapter around http-proxy-3.)
 */
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import type { BenchServer } from './bench-target.js';

export async function startBareProxy(options: { target: string }): Promise<BenchServer> {
  // The same agent settings as median-dev's forwarder (src/proxy/http-proxy.ts).
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
  const proxy = createProxyServer({ target: options.target, agent, xfwd: false });
  proxy.on('error', (_error, _req, res) => {
    // Answer 502 the way a reverse proxy would; the bench counts it as a failure.
    if (res && 'writeHead' in res && !res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"bad_gateway","message":"target not answering"}}');
    }
  });
  const server = createServer((req, res) => proxy.web(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      });
      return closing;
    },
  };
}
