import { STATUS_CODES, createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { WebSocket, WebSocketServer, RawData } from 'ws';
import { MedianDevError } from '../shared/errors.js';
import { createWorkInterval } from '../shared/work-interval.js';
import type { Logger } from '../shared/logger.js';
import type { UpgradeRefusal } from './upgrade-auth.js';


/** ws loads on first use: commands that only read the control file (`calls`, `show`) never load it. */
const loadWs = (): typeof import('ws') => createRequire(import.meta.url)('ws') as typeof import('ws');
/**
 * The one file of the server side that imports `ws`: a WebSocket server on a
 * plain HTTP server, behind our own small interface. Upgrades are checked
 * before `ws` sees them; refused ones get an HTTP error and no WebSocket.
 */

export interface WsPeer {
  readonly isOpen: boolean;
  /** Sends a text frame; a peer that stopped reading (too much buffered) is dropped. */
  send(text: string): void;
  close(code: number, reason: string): void;
}

export interface WsPeerHandlers {
  onText(text: string): void;
  onBinary(): void;
  onClose(code: number, reason: string): void;
}

export interface WsServerOptions {
  host: string;
  /** Default 0: any free port. */
  port?: number;
  /** Larger incoming frames close the connection (1009). */
  maxPayloadBytes: number;
  /** A ping every interval; a peer that did not pong since the last one is dropped. */
  heartbeatIntervalMs: number;
  /** A peer with more than this many bytes waiting to be sent is dropped. */
  maxBufferedBytes: number;
  checkUpgrade(headers: IncomingHttpHeaders): UpgradeRefusal | undefined;
  onConnection(peer: WsPeer): WsPeerHandlers;
  logger: Logger;
}

export interface WsServer {
  readonly port: number;
  peerCount(): number;
  /** Closes every peer (terminating those that do not answer within graceMs), then the server. Idempotent. */
  close(code: number, reason: string, graceMs: number): Promise<void>;
}

interface PeerEntry {
  ws: WebSocket;
  hasPonged: boolean;
}

export async function startWsServer(options: WsServerOptions): Promise<WsServer> {
  const { logger } = options;
  const peers = new Set<PeerEntry>();
  let isClosing = false;
  let closing: Promise<void> | undefined;

  const http = createServer((_req, res) => {
    const body = JSON.stringify({ error: { code: 'upgrade_required', message: 'This is the median-dev control channel; it speaks WebSocket only.' } });
    res.writeHead(426, { 'content-type': 'application/json', connection: 'close', upgrade: 'websocket' });
    res.end(body);
  });
  // Made at the first upgrade: loading ws (~10 ms, more on a busy machine) stays off the daemon's start, which a client never waits for.
  let wss: WebSocketServer | undefined;
  const wssNow = () => (wss ??= new (loadWs().WebSocketServer)({ noServer: true, maxPayload: options.maxPayloadBytes, perMessageDeflate: false }));

  http.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    socket.on('error', (error) => {
      logger.debug('control: socket error during the handshake', { error: String(error) });
    });
    const refusal = isClosing
      ? { status: 503, code: 'daemon_stopping', message: 'The median-dev daemon is stopping.' }
      : options.checkUpgrade(req.headers);
    if (refusal) {
      logger.debug('control: upgrade refused', { status: refusal.status, code: refusal.code });
      refuseUpgrade(socket, refusal);
      return;
    }
    wssNow().handleUpgrade(req, socket, head, (ws) => {
      if (isClosing) {
        ws.terminate();
        return;
      }
      attach(ws);
    });
  });

  function attach(ws: WebSocket): void {
    const entry: PeerEntry = { ws, hasPonged: true };
    peers.add(entry);
    heartbeat.start();
    ws.on('pong', () => {
      entry.hasPonged = true;
    });
    ws.on('error', (error) => {
      // ws closes the connection after an error (bad frame, too big, …); 'close' follows.
      logger.debug('control: connection error', { error: String(error) });
    });
    const peer: WsPeer = {
      get isOpen() {
        return ws.readyState === ws.OPEN;
      },
      send(text) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount > options.maxBufferedBytes) {
          logger.warn('control: dropping a client that stopped reading', { bufferedBytes: ws.bufferedAmount });
          ws.terminate();
          return;
        }
        ws.send(text);
      },
      close(code, reason) {
        ws.close(code, reason);
      },
    };
    const handlers = guard(options.onConnection(peer), logger);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) handlers.onBinary();
      else handlers.onText(toBuffer(data).toString('utf8'));
    });
    ws.once('close', (code: number, reason: Buffer) => {
      peers.delete(entry);
      handlers.onClose(code, reason.toString('utf8'));
    });
  }

  // Only while clients are connected: an idle daemon is not woken for nobody.
  const heartbeat = createWorkInterval(options.heartbeatIntervalMs, () => peers.size > 0, () => {
    for (const entry of peers) {
      if (!entry.hasPonged) {
        logger.debug('control: dropping a client that missed a heartbeat');
        entry.ws.terminate();
        continue;
      }
      entry.hasPonged = false;
      try {
        entry.ws.ping();
      } catch (error) {
        // The socket is no longer open; its 'close' removes it from `peers`.
        logger.debug('control: ping failed', { error: String(error) });
      }
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, options.host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    heartbeat.stop();
    throw new MedianDevError('control_listen_failed', `The control channel could not listen on ${options.host}: ${String(error)}`, {
      cause: error,
    });
  }
  http.on('error', (error) => logger.error('control: server error', { error: String(error) }));
  const { port } = http.address() as AddressInfo;

  return {
    port,
    peerCount: () => peers.size,
    close(code, reason, graceMs) {
      closing ??= (async () => {
        isClosing = true;
        heartbeat.stop();
        await Promise.allSettled([...peers].map((entry) => closePeer(entry.ws, code, reason, graceMs)));
        const made = wss;
        if (made) await new Promise<void>((resolve) => made.close(() => resolve()));
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      })();
      return closing;
    },
  };
}

/** Closes a WebSocket (either side), terminating it if the peer does not answer within `graceMs`. */
export function closePeer(ws: WebSocket, code: number, reason: string, graceMs: number): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => ws.terminate(), graceMs);
    timer.unref();
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(code, reason);
  });
}

function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  const lines = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(refusal.status === 401 ? ['WWW-Authenticate: Bearer'] : []),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** A handler that throws must not take the daemon down with it. */
function guard(handlers: WsPeerHandlers, logger: Logger): WsPeerHandlers {
  const wrap =
    <A extends unknown[]>(name: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (error) {
        logger.error(`control: ${name} handler failed`, { error: String(error) });
      }
    };
  return {
    onText: wrap('message', handlers.onText),
    onBinary: wrap('binary message', handlers.onBinary),
    onClose: wrap('close', handlers.onClose),
  };
}
