import type { Clock } from '../shared/clock.js';
import { pause } from '../shared/delay.js';
import type { Logger } from '../shared/logger.js';
import type { TunnelConnection, TunnelOpenRequest, TunnelProvider } from './tunnel-provider.js';

export interface OpenFirstOptions {
  provider: TunnelProvider;
  request: TunnelOpenRequest;
  /** How long to keep asking for `request.subdomain`; 0: take what the server grants. */
  nameRetryMs: number;
  /** The first pause between asks; it doubles. */
  nameRetryBaseMs: number;
  signal: AbortSignal | undefined;
  logger: Logger;
  /** The pauses between asks run on it. */
  clock: Clock;
}

/**
 * The first open. A server that grants another name than the one asked for
 * may still hold ours: localtunnel-server keeps a name for a second after its
 * sockets closed, so a quick restart finds it taken. Then: keep the granted
 * connection as the fallback, ask for ours again with backoff for
 * `nameRetryMs`, and take it if it comes; else settle for the fallback.
 */
export async function openFirst(options: OpenFirstOptions): Promise<TunnelConnection> {
  const { request, signal, logger, clock } = options;
  const now = (): number => clock.now();
  const fallback = await options.provider.open(request, { signal });
  const wanted = request.subdomain;
  const retryForMs = options.nameRetryMs;
  if (wanted === undefined || fallback.subdomain === undefined || fallback.subdomain === wanted || retryForMs <= 0) return fallback;

  // A fallback lost meanwhile is still returned: startTunnel hears of the loss and reopens.
  let isFallbackLost = false;
  fallback.onLost(() => (isFallbackLost = true));
  const baseMs = options.nameRetryBaseMs;
  const startedAt = now();
  logger.info('tunnel name taken; asking for it again', { wanted, granted: fallback.subdomain, forMs: retryForMs });
  for (let retry = 0; !signal?.aborted && !isFallbackLost; retry += 1) {
    const left = retryForMs - (now() - startedAt);
    if (left <= 0) break;
    await pause(Math.min(baseMs * 2 ** retry, left), signal, clock);
    if (signal?.aborted || isFallbackLost) break;
    let next: TunnelConnection;
    try {
      next = await options.provider.open(request, { signal });
    } catch (error) {
      // The fallback still carries requests: settle for it.
      logger.debug('asking for the tunnel name again failed', { error: String(error) });
      break;
    }
    if (next.subdomain === wanted) {
      await fallback.close();
      return next;
    }
    await next.close();
  }
  return fallback;
}
