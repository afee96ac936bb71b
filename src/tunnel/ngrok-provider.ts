import { systemClock, type Clock, type ClockTimer } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { isMedianDevError } from '../shared/errors.js';
import { loadNgrokLibrary, type NgrokLibrary, type NgrokListener } from './ngrok-library.js';
import { missingAuthtokenError, ngrokError, notInstalledError } from './ngrok-errors.js';
import { createLostSignal, signalledConnection, type LostSignal } from './lost-signal.js';
import { openAbortedError, openTimeoutError } from './tunnel-errors.js';
import type { TunnelConnection, TunnelProvider } from './tunnel-provider.js';

export interface NgrokProviderOptions {
  /** NGROK_AUTHTOKEN (from the environment or the env cascade). */
  authtoken: string | undefined;
  /** A static domain (`<name>.ngrok-free.dev`): the URL never changes, so the endpoint never needs healing. */
  domain?: string;
  logger?: Logger;
  /** Default 20000 ms. */
  openTimeoutMs?: number;
  /** The open timeout runs on it (tests drive it); real time when left out. */
  clock?: Clock;
  /** How the library is loaded (on the first open); default: import @ngrok/ngrok, undefined when it is not installed. */
  load?: () => Promise<NgrokLibrary | undefined>;
}

/**
 * `--tunnel ngrok`: ngrok in process, through `@ngrok/ngrok`. The session
 * reconnects by itself after a network blip and keeps its URL; a status
 * `closed` the library reports is a lost tunnel, and the reopen forwards
 * again (with a static domain, to the same URL: no heal).
 */
export function createNgrokProvider(options: NgrokProviderOptions): TunnelProvider {
  const logger = options.logger ?? silentLogger;
  const openTimeoutMs = options.openTimeoutMs ?? 20_000;
  const clock = options.clock ?? systemClock;
  let library: NgrokLibrary | undefined;
  const load = options.load ?? loadNgrokLibrary;
  return {
    name: 'ngrok',
    async open(request, { signal } = {}) {
      if (signal?.aborted) throw openAbortedError();
      if (!options.authtoken) throw missingAuthtokenError();
      library ??= await load();
      if (!library) throw notInstalledError();
      const lost = createLostSignal();
      const onStatusChange = (status: string): void => {
        logger.debug('ngrok session status', { status });
        if (status === 'closed') lost.lose('the ngrok session closed');
      };
      let timer: ClockTimer | undefined;
      const forwarding = library.forward({
        addr: `127.0.0.1:${request.localPort}`,
        authtoken: options.authtoken,
        ...(options.domain ? { domain: options.domain } : {}),
        onStatusChange,
        onLogEvent: (data) => logger.debug('ngrok', { data }),
      });
      let listener: NgrokListener;
      try {
        listener = await Promise.race([
          forwarding,
          new Promise<never>((_resolve, reject) => {
            timer = clock.setTimer(() => reject(openTimeoutError('ngrok', openTimeoutMs)), openTimeoutMs);
            signal?.addEventListener('abort', () => reject(openAbortedError()), { once: true });
          }),
        ]);
      } catch (error) {
        // A forward that finishes after we gave up is closed at once.
        forwarding.then((late) => late.close()).catch(() => undefined);
        throw isMedianDevError(error) ? error : ngrokError(error, options.domain);
      } finally {
        timer?.cancel();
      }
      const url = listener.url();
      if (!url) {
        await listener.close().catch(() => undefined);
        throw ngrokError(new Error('ngrok gave the tunnel no URL'), options.domain);
      }
      return connectionOf(listener, new URL(url).origin, lost);
    },
  };
}

function connectionOf(listener: NgrokListener, url: string, lost: LostSignal): TunnelConnection {
  return signalledConnection(url, lost, () => listener.close().catch(() => undefined));
}
