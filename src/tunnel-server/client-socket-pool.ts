import { Agent, type ClientRequestArgs } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MedianDevError } from '../shared/errors.js';
import type { Clock, ClockTimer } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';

export interface ClientSocketPoolOptions {
  id: string;
  /** Interface the client's TCP listener binds to. */
  host: string;
  maxConnCount: number;
  /** Sockets accepted at once; more are destroyed as they connect (see TunnelServerOptions.acceptedSockets). */
  acceptedSockets: number;
  /** Each socket destroyed on connect because `acceptedSockets` were open. */
  onRefusedSocket(): void;
  /** Each tunnel socket taken into the pool. */
  onAcceptedSocket(): void;
  /** A client with no socket for this long is forgotten (localtunnel-server: 1 s). */
  offlineGraceMs: number;
  /** The grace runs on it. */
  clock: Clock;
  /** What happens to a socket once its answer ended (see TunnelServerOptions.socketReuse). */
  socketReuse: SocketReuse;
  logger: Logger;
  /** Called once the grace period ran out with no socket; the server then forgets the client. */
  onOffline(): void;
}

/**
 * One registered client: its own TCP listener, the sockets the client opened
 * to it, and an http.Agent that hands those sockets to forwarded requests
 * (kept alive between requests, like localtunnel-server's TunnelAgent).
 */
export interface ClientSocketPool {
  readonly id: string;
  readonly port: number;
  readonly agent: Agent;
  socketCount(): number;
  /** Destroys every socket; the listener stays, so the client may reconnect. */
  dropSockets(): void;
  /** Destroys every socket and closes the listener. Idempotent. */
  close(): Promise<void>;
}

type SocketCallback = (error: Error | null, socket: Duplex) => void;

/**
 * `pool`: every socket is kept alive for the next request. `localtunnel-server`:
 * as its TunnelAgent does it (`keepAlive: true, maxFreeSockets: 1`, no
 * `maxSockets`): the Agent keeps one free socket and destroys every other one
 * whose answer ended while none was waiting in the Agent (requests wait in the
 * pool instead), so under concurrency the client opens a new socket for most
 * requests.
 */
export type SocketReuse = 'pool' | 'localtunnel-server';

/**
 * Request option naming a signal that cancels the wait for a tunnel socket
 * (http.Agent passes unknown request options through to createConnection).
 */
export const WAIT_SIGNAL_OPTION = 'tunnelWaitSignal';

class PoolAgent extends Agent {
  constructor(
    private readonly take: (callback: SocketCallback, signal: AbortSignal | undefined) => Duplex | undefined,
    maxSockets: number,
    reuse: SocketReuse,
  ) {
    super(reuse === 'pool' ? { keepAlive: true, maxSockets, maxFreeSockets: maxSockets } : { keepAlive: true, maxFreeSockets: 1 });
  }

  override createConnection(options: ClientRequestArgs, callback?: SocketCallback): Duplex | undefined {
    const signal = (options as Record<string, unknown>)[WAIT_SIGNAL_OPTION] as AbortSignal | undefined;
    // The Agent always passes a callback; without one there is nobody to hand a later socket to.
    return this.take(callback ?? (() => undefined), signal);
  }
}

export async function startClientSocketPool(options: ClientSocketPoolOptions): Promise<ClientSocketPool> {
  const { id, logger } = options;
  const sockets = new Set<Socket>();
  const idle: Socket[] = [];
  const waiters: SocketCallback[] = [];
  let closed = false;
  let graceTimer: ClockTimer | undefined;

  const armGrace = (): void => {
    if (closed || graceTimer || sockets.size > 0) return;
    graceTimer = options.clock.setTimer(() => {
      graceTimer = undefined;
      if (!closed && sockets.size === 0) options.onOffline();
    }, options.offlineGraceMs);
  };

  const take = (callback: SocketCallback, signal: AbortSignal | undefined): Duplex | undefined => {
    const socket = idle.shift();
    if (socket) return socket;
    if (signal?.aborted) {
      callback(new MedianDevError('tunnel_wait_aborted', 'The request stopped waiting for a tunnel socket.'), undefined as unknown as Duplex);
      return undefined;
    }
    waiters.push(callback);
    signal?.addEventListener(
      'abort',
      () => {
        const at = waiters.indexOf(callback);
        if (at === -1) return;
        waiters.splice(at, 1);
        callback(new MedianDevError('tunnel_wait_aborted', 'The request stopped waiting for a tunnel socket.'), undefined as unknown as Duplex);
      },
      { once: true },
    );
    return undefined;
  };

  const agent = new PoolAgent(take, options.maxConnCount, options.socketReuse);

  const listener: Server = createServer((socket) => {
    if (closed || sockets.size >= options.acceptedSockets) {
      // localtunnel-server's TunnelAgent._onConnection: `socket.destroy()` once the client has its 10.
      if (!closed) options.onRefusedSocket();
      socket.destroy();
      return;
    }
    sockets.add(socket);
    options.onAcceptedSocket();
    graceTimer?.cancel();
    graceTimer = undefined;
    socket.setKeepAlive(true);
    socket.on('error', (error) => logger.debug('tunnel socket error', { id, error: error.message }));
    socket.once('close', () => {
      sockets.delete(socket);
      const at = idle.indexOf(socket);
      if (at !== -1) idle.splice(at, 1);
      armGrace();
    });
    const waiter = waiters.shift();
    if (waiter) waiter(null, socket);
    else idle.push(socket);
  });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', (error) =>
      reject(new MedianDevError('tunnel_server_listen_failed', `Could not open a socket listener for tunnel "${id}".`, { cause: error })),
    );
    listener.listen(0, options.host, () => resolve());
  });
  listener.on('error', (error) => logger.warn('tunnel listener error', { id, error: error.message }));
  const { port } = listener.address() as AddressInfo;
  armGrace();

  const dropSockets = (): void => {
    for (const socket of sockets) socket.destroy();
  };

  let closing: Promise<void> | undefined;
  return {
    id,
    port,
    agent,
    socketCount: () => sockets.size,
    dropSockets,
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        graceTimer?.cancel();
        graceTimer = undefined;
        const gone = new MedianDevError('tunnel_client_gone', `Tunnel "${id}" is gone.`);
        for (const waiter of waiters.splice(0)) waiter(gone, undefined as unknown as Duplex);
        agent.destroy();
        dropSockets();
        listener.close(() => resolve());
      });
      return closing;
    },
  };
}
