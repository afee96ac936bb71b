/**
 * The dev server stand-in: a minimal node:http server that reads the body
 * and answers every request at once with a small successful tool result.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BenchServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

const ANSWER = Buffer.from(
  JSON.stringify({ result: { ok: true, orderId: 'ord_100042', status: 'shipped', carrier: 'DHL', eta: '2025-06-03' } }),
  'utf8',
);

export async function startBenchTarget(): Promise<BenchServer> {
  const server = createServer((req, res) => {
    req.on('data', () => {
      // The body is read and dropped.
    });
    req.once('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length });
      res.end(ANSWER);
    });
  });
  // Above the proxies' idle limit, so no proxy reuses a socket we are closing.
  server.keepAliveTimeout = 65_000;
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
      });
      return closing;
    },
  };
}
