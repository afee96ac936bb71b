import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { findFreePorts } from '../../../src/shared/free-port.js';

/** Listening TCP servers of this thread's event loop. */
function listeningServers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
}

/** Listens on `port` and closes again: true when nothing held it. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('findFreePorts', () => {
  it('gives ports that are all different, and holds none of them once it returns', async () => {
    const before = listeningServers();
    for (let round = 0; round < 20; round++) {
      const ports = await findFreePorts(3);
      expect(new Set(ports).size).toBe(3);
      // Its own servers are closed. (Whether each port is free a moment later is another process's
      // business too: with several test files at once one may already have taken it.)
      await vi.waitFor(() => expect(listeningServers()).toBe(before), { timeout: 2_000, interval: 5 });
    }
  });

  it('the ports it gave can be listened on again', async () => {
    const ports = await findFreePorts(3);
    const results = await Promise.all(ports.map(isFree));
    // A port taken by another process in between is the documented race; most are free.
    expect(results.filter(Boolean).length).toBeGreaterThanOrEqual(2);
  });
});
