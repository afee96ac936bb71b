import { createRequire } from 'node:module';
import type { RawData } from 'ws';
import { MedianDevError } from '../shared/errors.js';
import { closePeer } from './ws-server.js';


/** ws loads on first use, when a command really connects to the daemon. */
const loadWs = (): typeof import('ws') => createRequire(import.meta.url)('ws') as typeof import('ws');
/**
 * The one file of the client side that imports `ws`: opens a WebSocket and
 * reports its frames and its end through handlers given up front, so no frame
 * is missed between the handshake and the caller's first listener.
 */

export interface WsClientHandlers {
  onText(text: string): void;
  /** Every ping from the server (heartbeat). */
  onPing(): void;
  /** Once, when the connection ends after it opened. */
  onClose(code: number, reason: string): void;
}

export interface OpenWsOptions {
  url: string;
  headers: Record<string, string>;
  maxPayloadBytes: number;
  /** Aborting rejects with the signal's reason (a timeout is the caller's signal too). */
  signal: AbortSignal;
  handlers: WsClientHandlers;
}

export interface WsConnection {
  readonly isOpen: boolean;
  /** False when the connection is not open. */
  send(text: string): boolean;
  /** Closes (terminating after graceMs without an answer); resolves once closed. */
  close(code: number, reason: string, graceMs: number): Promise<void>;
  terminate(): void;
}

/**
 * Resolves once the server accepted the WebSocket. Rejects with
 * `control_refused` (401/403, details {status}), `daemon_not_running` (nothing
 * answers, or something that is not a control channel), or the signal's reason.
 */
export function openWsConnection(options: OpenWsOptions): Promise<WsConnection> {
  options.signal.throwIfAborted();
  const ws = new (loadWs().WebSocket)(options.url, {
    headers: options.headers,
    maxPayload: options.maxPayloadBytes,
    perMessageDeflate: false,
    followRedirects: false,
  });
  let hasOpened = false;

  ws.on('message', (data: RawData, isBinary: boolean) => {
    // The control protocol is text only; a binary frame is ignored.
    if (!isBinary) options.handlers.onText(toBuffer(data).toString('utf8'));
  });
  ws.on('ping', () => options.handlers.onPing());
  ws.once('close', (code: number, reason: Buffer) => {
    if (hasOpened) options.handlers.onClose(code, reason.toString('utf8'));
  });

  const connection: WsConnection = {
    get isOpen() {
      return ws.readyState === ws.OPEN;
    },
    send(text) {
      if (ws.readyState !== ws.OPEN) return false;
      ws.send(text);
      return true;
    },
    close(code, reason, graceMs) {
      return closePeer(ws, code, reason, graceMs);
    },
    terminate() {
      ws.terminate();
    },
  };

  return new Promise<WsConnection>((resolve, reject) => {
    let isSettled = false;
    const fail = (error: unknown): void => {
      if (isSettled) return;
      isSettled = true;
      options.signal.removeEventListener('abort', onAbort);
      ws.terminate();
      reject(error);
    };
    const onAbort = (): void => fail(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });

    ws.on('error', (error) => {
      // After the handshake, errors are followed by 'close', which reports them.
      if (!hasOpened) fail(unreachable(options.url, error));
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status === 401 || status === 403) {
        fail(
          new MedianDevError('control_refused', `The median-dev daemon refused the control connection (HTTP ${status}).`, {
            hint: 'The token in control.json did not match; restart the daemon with `median-dev start`.',
            details: { status },
          }),
        );
      } else {
        fail(
          new MedianDevError('daemon_not_running', `${options.url} answered HTTP ${status}; no median-dev daemon listens there.`, {
            hint: 'Start it with `median-dev start`',
            details: { status },
          }),
        );
      }
    });
    ws.once('open', () => {
      if (isSettled) return;
      isSettled = true;
      hasOpened = true;
      options.signal.removeEventListener('abort', onAbort);
      resolve(connection);
    });
  });
}

function unreachable(url: string, error: Error): MedianDevError {
  return new MedianDevError('daemon_not_running', `No median-dev daemon answers at ${url} (${error.message}).`, {
    hint: 'Start it with `median-dev start`',
    cause: error,
  });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
