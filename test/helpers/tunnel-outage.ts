import type { TunnelServer, TunnelServerOptions } from '../../src/tunnel-server/index.js';
import type { E2eWorld } from './e2e-world.js';
import { useTunnelServer } from './use-tunnel-server.js';

/**
 * Stops the world's tunnel server and, after `offlineMs` (a timed outage:
 * connections to its port are refused meanwhile) or once `offlineUntil`
 * settled (an outage that ends on an event), starts a new one on the
 * same port that knows no client, like a restarted localtunnel server. The
 * world's `tunnelServer` is the new one afterwards (the emulator's resolver
 * still reaches it: same host and port). Resolves once the new one listens.
 */
export async function restartTunnelServer(
  world: E2eWorld,
  options: { offlineMs?: number; offlineUntil?: Promise<unknown>; server?: TunnelServerOptions } = {},
): Promise<TunnelServer> {
  const old = world.tunnelServer;
  await old.close();
  if (options.offlineMs) await new Promise((resolve) => setTimeout(resolve, options.offlineMs));
  if (options.offlineUntil) await options.offlineUntil.catch(() => undefined);
  const next = await useTunnelServer({ ...options.server, port: old.port, domain: old.domain });
  world.tunnelServer = next;
  return next;
}
