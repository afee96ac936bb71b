import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePorts } from '../../../src/shared/free-port.js';

/** Listens on `port` and closes again: true when nothing held it. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('findFreePorts', () => {
  it('gives ports that are all different and all free again once it returns', async () => {
    for (let round = 0; round < 20; round++) {
      const ports = await findFreePorts(3);
      expect(new Set(ports).size).toBe(3);
      for (const port of ports) expect(await isFree(port)).toBe(true);
    }
  });
});
