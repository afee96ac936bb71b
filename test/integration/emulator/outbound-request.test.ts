import { describe, expect, it } from 'vitest';
import { sendOutbound } from '../../../src/emulator/outbound-request.js';
import { useHttpServer } from '../../helpers/use-http-server.js';

describe("the emulator's outbound request", () => {
  it('aborted before it starts: resolves aborted and leaves no uncaught "socket hang up" behind', async () => {
    let isReached = false;
    const route = await useHttpServer((_req, res) => {
      isReached = true;
      res.end('{}');
    });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', onUncaught);
    try {
      const result = await sendOutbound({ method: 'POST', url: route.url, headers: {}, body: '{}', timeoutMs: 1_000, maxBytes: 1_000, resolvers: [], signal: AbortSignal.abort() });
      expect(result.kind).toBe('aborted');
      // The destroyed request reports its error on a later turn: let those turns pass.
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(isReached).toBe(false);
  });
});

