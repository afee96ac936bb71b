/**
 * The `onLost` half of a TunnelConnection: each listener hears the loss at
 * most once, also when it subscribes after it (a microtask later), and
 * nobody hears it after the connection was closed.
 */
import type { TunnelConnection } from './tunnel-provider.js';

export interface LostSignal {
  onLost(listener: (reason: string) => void): void;
  /** The connection can no longer carry requests; the first reason wins. */
  lose(reason: string): void;
  /** Closed on purpose: no loss is told from now on. */
  close(): void;
  readonly isClosed: boolean;
}

export function createLostSignal(): LostSignal {
  let isClosed = false;
  let lostReason: string | undefined;
  const listeners: Array<(reason: string) => void> = [];
  return {
    get isClosed() {
      return isClosed;
    },
    onLost(listener) {
      listeners.push(listener);
      if (lostReason !== undefined) {
        const reason = lostReason;
        queueMicrotask(() => {
          if (!isClosed) listener(reason);
        });
      }
    },
    lose(reason) {
      if (isClosed || lostReason !== undefined) return;
      lostReason = reason;
      for (const listener of listeners) listener(reason);
    },
    close() {
      isClosed = true;
    },
  };
}

/**
 * A TunnelConnection for a provider that cannot count sockets or bytes (the
 * program providers, ngrok, an attached agent): its URL, its loss signal,
 * and how it closes. `close()` is idempotent.
 */
export function signalledConnection(url: string, lost: LostSignal, close: () => Promise<void>): TunnelConnection {
  let closing: Promise<void> | undefined;
  return {
    url,
    subdomain: undefined,
    socketCount: () => undefined,
    bytesReceived: () => undefined,
    onLost: (listener) => lost.onLost(listener),
    close() {
      lost.close();
      closing ??= close();
      return closing;
    },
  };
}
