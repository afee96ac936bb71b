import { systemClock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { UserError, isMedianDevError } from '../shared/errors.js';
import { parseTunnelHost, requestRegistration } from './localtunnel-registration.js';
import { startSocketCluster } from './tunnel-socket-cluster.js';
import { createLostSignal } from './lost-signal.js';
import { TUNNEL_ERROR_CODES, openAbortedError, openTimeoutError } from './tunnel-errors.js';
import type { LocaltunnelProviderOptions, TunnelConnection, TunnelProvider } from './tunnel-provider.js';

/**
 * The localtunnel provider. It speaks the protocol of SPEC §1.4 itself
 * (node:http for the registration, node:net for the sockets) instead of
 * importing the `localtunnel` package, whose open retries forever on an error
 * answer or an unreachable server and cannot be stopped, whose `error` event
 * crashes a process that does not listen, which never registers again once
 * the server forgot it, and which connects to `localhost`. Here: one attempt
 * per open with a timeout and an AbortSignal, no event that can crash,
 * `onLost` when the sockets are gone (the caller registers again), and
 * requests go to 127.0.0.1.
 */
export function createLocaltunnelProvider(options: LocaltunnelProviderOptions): TunnelProvider {
  const host = parseTunnelHost(options.host);
  const logger = options.logger ?? silentLogger;
  const openTimeoutMs = options.openTimeoutMs ?? 15_000;
  const clock = options.clock ?? systemClock;

  return {
    name: 'localtunnel',
    async open(request, { signal } = {}) {
      const deadline = new AbortController();
      const timeoutReason = openTimeoutError(host.origin, openTimeoutMs);
      const timer = clock.setTimer(() => deadline.abort(timeoutReason), openTimeoutMs);
      const onAbort = (): void => deadline.abort(openAbortedError());
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      let cluster: ReturnType<typeof startSocketCluster> | undefined;
      try {
        const aborted = new Promise<never>((_resolve, reject) => {
          const fail = (): void => reject(deadline.signal.reason);
          if (deadline.signal.aborted) fail();
          else deadline.signal.addEventListener('abort', fail, { once: true });
        });
        aborted.catch(() => undefined); // raced below; a late rejection is expected
        const registration = await Promise.race([requestRegistration(host, request.subdomain, deadline.signal, options.domains), aborted]);
        logger.debug('tunnel registered', { id: registration.id, port: registration.port, sockets: registration.maxConnCount });
        cluster = startSocketCluster({
          remoteHost: registration.remoteHost,
          remotePort: registration.port,
          size: registration.maxConnCount,
          localHost: options.localHost ?? '127.0.0.1',
          localPort: request.localPort,
          ...(request.handOff ? { handOff: request.handOff } : {}),
          logger,
          lostAfterMs: options.lostAfterMs ?? 3000,
          connectTimeoutMs: openTimeoutMs,
          backoff: { baseMs: options.socketRetryBaseMs, maxMs: options.socketRetryMaxMs, random: options.random },
          clock,
        });
        await Promise.race([
          cluster.ready.catch((error: unknown) => {
            throw new UserError(
              TUNNEL_ERROR_CODES.connectFailed,
              `The tunnel server gave port ${registration.port}, but no connection to ${registration.remoteHost}:${registration.port} opened.`,
              { hint: 'A firewall may block outgoing connections to that port.', cause: error },
            );
          }),
          aborted,
        ]);
        return connectionOf(registration.url, registration.id, cluster);
      } catch (error) {
        cluster?.close();
        if (deadline.signal.aborted && !isMedianDevError(error)) throw deadline.signal.reason;
        throw error;
      } finally {
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

function connectionOf(url: string, subdomain: string, cluster: ReturnType<typeof startSocketCluster>): TunnelConnection {
  const lost = createLostSignal();
  cluster.onLost((reason) => lost.lose(reason));
  return {
    url,
    subdomain,
    socketCount: () => cluster.liveCount(),
    bytesReceived: () => cluster.bytesReceived(),
    onLost: (listener) => lost.onLost(listener),
    async close() {
      lost.close();
      cluster.close();
    },
  };
}
