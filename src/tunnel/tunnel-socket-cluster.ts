import { connect, type Socket } from 'node:net';
import type { Clock, ClockTimer } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { reconnectDelayMs, type BackoffOptions } from './reconnect-delay.js';

export interface SocketClusterOptions {
  remoteHost: string;
  remotePort: number;
  /** Sockets kept open to the server (its `max_conn_count`). */
  size: number;
  /** Where requests go: 127.0.0.1 (not localhost, which may resolve to ::1). */
  localHost: string;
  localPort: number;
  /** Hands each connected socket to the local HTTP server instead of piping it to `localPort`. */
  handOff?: (socket: Socket) => void;
  logger: Logger;
  /** With no socket for this long the cluster is lost. */
  lostAfterMs: number;
  /** A socket that does not connect in this time counts as failed. */
  connectTimeoutMs: number;
  backoff: BackoffOptions;
  /** The lost window and the socket retries' backoff run on it. */
  clock: Clock;
}

/**
 * The sockets of one localtunnel registration. Each one waits for a request
 * from the server, then connects to the local port and pipes raw bytes both
 * ways; a closed socket is replaced (at once when it served, with backoff when
 * it failed). With no socket for `lostAfterMs` the cluster reports itself lost;
 * at once when a replacement is refused (ECONNREFUSED): the server closed the
 * registration's port, so it restarted or forgot us, and no socket will come
 * back there.
 */
export interface SocketCluster {
  /** Resolves once a socket connected; rejects when every first attempt failed. */
  readonly ready: Promise<void>;
  liveCount(): number;
  /** Bytes the server sent down every socket so far: growing, it proves requests come through. */
  bytesReceived(): number;
  onLost(listener: (reason: string) => void): void;
  /** Destroys every socket and timer; nothing reconnects afterwards. */
  close(): void;
}

/** A socket that lived this long without traffic still counts as healthy when it closes. */
const HEALTHY_SOCKET_MS = 1000;
/**
 * A slot whose socket the server closed right after accepting it this many
 * times in a row, while other sockets stay open, is given up for this
 * registration: localtunnel-server advertises its --max-sockets but accepts
 * only 10 and destroys the rest on connect, forever.
 */
const REFUSALS_TO_RETIRE_SLOT = 2;
/** TCP keepalive so a silently dead connection is noticed (the probe catches the rest). */
const KEEPALIVE_DELAY_MS = 10_000;

export function startSocketCluster(options: SocketClusterOptions): SocketCluster {
  const { logger } = options;
  const sockets = new Set<Socket>();
  const timers = new Set<ClockTimer>();
  const lostListeners: Array<(reason: string) => void> = [];
  let live = 0;
  /** bytesRead of the sockets already closed. */
  let closedBytes = 0;
  let closed = false;
  let lost = false;
  /** A socket connected once: the registration worked, so a refusal now means it is gone. */
  let hasConnected = false;
  let firstFailures = 0;
  /** Slots given up because the server keeps refusing them (see REFUSALS_TO_RETIRE_SLOT). */
  let retired = 0;
  let lostTimer: ClockTimer | undefined;
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined); // the opener awaits it; an unawaited rejection must not crash

  const later = (fn: () => void, ms: number): void => {
    const timer = options.clock.setTimer(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const loseNow = (reason: string): void => {
    if (closed || lost) return;
    lostTimer?.cancel();
    lostTimer = undefined;
    lost = true;
    for (const listener of lostListeners) listener(reason);
  };

  const armLost = (): void => {
    if (closed || lost || live > 0 || lostTimer) return;
    lostTimer = options.clock.setTimer(() => {
      lostTimer = undefined;
      if (closed || live > 0) return;
      loseNow('every tunnel socket is gone');
    }, options.lostAfterMs);
  };

  /** `refusals`: times in a row this slot's socket was closed by the server right after connecting. */
  const openSlot = (failures: number, isFirst: boolean, refusals = 0): void => {
    if (closed || lost) return;
    const remote = connect({ host: options.remoteHost, port: options.remotePort });
    sockets.add(remote);
    remote.setTimeout(options.connectTimeoutMs, () => remote.destroy(new Error('connect timeout')));
    let connectedAt: number | undefined;
    let carried = false;
    let isRefused = false;

    remote.once('connect', () => {
      remote.setTimeout(0);
      remote.setKeepAlive(true, KEEPALIVE_DELAY_MS);
      // No Nagle delay, as an HTTP server sets on the connections it accepts (a handed-off socket never passes its
      // accept): an answer's last small write does not wait for the ACK of the one before it.
      remote.setNoDelay(true);
      connectedAt = options.clock.now();
      live += 1;
      hasConnected = true;
      lostTimer?.cancel();
      lostTimer = undefined;
      resolveReady();
    });
    remote.once('data', (first: Buffer) => {
      carried = true;
      remote.pause();
      if (!options.handOff) {
        pipeToLocal(remote, first, options);
        return;
      }
      // Handed over only once a request arrives: an HTTP server counts a
      // connection's header and request timeouts from when it gets it, and an
      // idle tunnel socket would be answered 408 (unasked) after a minute.
      remote.unshift(first);
      options.handOff(remote);
      // A data listener does not resume a stream paused by hand: the server reads the first chunk now.
      remote.resume();
    });
    remote.on('error', (error: NodeJS.ErrnoException) => {
      if (connectedAt === undefined && error.code === 'ECONNREFUSED') isRefused = true;
      logger.debug('tunnel socket error', { error: error.message });
    });
    remote.once('close', () => {
      sockets.delete(remote);
      closedBytes += remote.bytesRead;
      if (connectedAt !== undefined) live -= 1;
      if (closed) return;
      if (isRefused && !isFirst && hasConnected) {
        loseNow(`the tunnel server refused a new socket to port ${options.remotePort}: it closed this tunnel (restarted, or forgot it)`);
        return;
      }
      const healthy = connectedAt !== undefined && (carried || options.clock.now() - connectedAt >= HEALTHY_SOCKET_MS);
      const wasRefusedAfterConnect = connectedAt !== undefined && !healthy;
      if (wasRefusedAfterConnect && live > 0 && refusals + 1 >= REFUSALS_TO_RETIRE_SLOT) {
        // The server keeps the others and refuses this one: stop asking, it will not change its mind.
        retired += 1;
        logger.debug('the tunnel server keeps refusing a socket; using fewer', { kept: options.size - retired, advertised: options.size });
        return;
      }
      if (isFirst && connectedAt === undefined) {
        firstFailures += 1;
        if (firstFailures >= options.size && live === 0) {
          rejectReady(new Error(`no socket could connect to ${options.remoteHost}:${options.remotePort}`));
        }
      }
      armLost();
      if (healthy) openSlot(0, false);
      else later(() => openSlot(failures + 1, false, wasRefusedAfterConnect ? refusals + 1 : 0), reconnectDelayMs(failures, options.backoff));
    });
  };

  for (let i = 0; i < options.size; i += 1) openSlot(0, true);

  return {
    ready,
    liveCount: () => live,
    bytesReceived() {
      // A handed-off socket is read by the HTTP parser straight from its handle; bytesRead still counts it.
      let total = closedBytes;
      for (const socket of sockets) total += socket.bytesRead;
      return total;
    },
    onLost(listener) {
      lostListeners.push(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      lostTimer?.cancel();
      for (const timer of timers) timer.cancel();
      timers.clear();
      for (const socket of sockets) socket.destroy();
      rejectReady(new Error('closed'));
    },
  };
}

/** Connects to the local app for a request that arrived on `remote`, then pipes both ways. */
function pipeToLocal(remote: Socket, first: Buffer, options: SocketClusterOptions): void {
  const local = connect({ host: options.localHost, port: options.localPort });
  let connected = false;
  local.once('connect', () => {
    connected = true;
    local.write(first);
    remote.pipe(local).pipe(remote);
    remote.resume();
  });
  local.on('error', (error: NodeJS.ErrnoException) => {
    options.logger.debug('local connection error', { port: options.localPort, error: error.message });
    if (connected || remote.destroyed) {
      remote.destroy();
      return;
    }
    // Nothing listens locally: tell the caller instead of holding the request.
    const body = JSON.stringify({
      error: { code: 'tunnel_local_unreachable', message: `median-dev could not reach 127.0.0.1:${options.localPort} (${error.code ?? error.message}).` },
    });
    remote.end(
      `HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // The pipes end the other side gracefully; these catch a side that closed without ending.
  local.once('close', () => {
    if (!remote.writableEnded) remote.end();
  });
  remote.once('close', () => local.destroy());
}
