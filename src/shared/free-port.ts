import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now (listen on 0, close). For a
 * child that must be told its port before it starts; another process may
 * take it in between, so use it at once.
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
