import type { TunnelServer } from '../../src/tunnel-server/index.js';
import { createLocaltunnelProvider, startTunnel, type StartTunnelOptions, type TunnelEvent, type TunnelHandle } from '../../src/tunnel/index.js';
import { useHttpServer } from './use-http-server.js';
import { useTeardown } from './use-teardown.js';

export const FAST_PROVIDER = { openTimeoutMs: 3000, lostAfterMs: 300, socketRetryBaseMs: 20, socketRetryMaxMs: 100 };
export const FAST_REOPEN = { reconnectBaseMs: 20, reconnectMaxMs: 100 };

export interface Started {
  handle: TunnelHandle;
  events: TunnelEvent[];
  /** Resolves with the next event of that type (after the ones already seen). */
  next<K extends TunnelEvent['type']>(type: K, timeoutMs?: number): Promise<Extract<TunnelEvent, { type: K }>>;
}

/** startTunnel against the loopback tunnel server, closed after the test; `next(type)` waits for an event. */
export async function useTunnel(server: TunnelServer, localPort: number, options: Partial<StartTunnelOptions> = {}): Promise<Started> {
  const events: TunnelEvent[] = [];
  const handle = useTeardown(
    await startTunnel({
      provider: createLocaltunnelProvider({ host: server.url, ...FAST_PROVIDER }),
      localPort,
      ...FAST_REOPEN,
      onEvent: (event) => events.push(event),
      ...options,
    }),
    (h) => h.close(),
  );
  return {
    handle,
    events,
    next(type, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${type}" event within ${timeoutMs} ms`)), timeoutMs);
        const off = handle.on(type, (event) => {
          clearTimeout(timer);
          off();
          resolve(event);
        });
      });
    },
  };
}

/** An app that answers `app:<path>`. */
export async function useOkApp() {
  return useHttpServer((req, res) => res.end(`app:${req.url}`));
}
