import { MedianDevError } from '../shared/errors.js';
import { receivedErrorCode } from '../shared/error-codes.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import { readControlFile, type ReadControlFileOptions } from './control-file.js';
import { CONTROL_HEARTBEAT_INTERVAL_MS, CONTROL_MAX_SERVER_FRAME_BYTES, parseServerFrame } from './control-protocol.js';
import { openWsConnection, type WsConnection } from './ws-client.js';

export interface ConnectControlOptions {
  port: number;
  token: string;
  /** For connecting and receiving the snapshot; default 5 s. */
  timeoutMs?: number;
  /** Aborts the connecting only (use close() afterwards). */
  signal?: AbortSignal;
  /** No ping or frame from the daemon for this long ends the connection; default 45 s (3 heartbeats). */
  heartbeatTimeoutMs?: number;
  logger?: Logger;
}

export interface ConnectToDaemonOptions extends Omit<ConnectControlOptions, 'port' | 'token'>, ReadControlFileOptions {}

export interface ControlClient {
  /** The daemon's state when the client connected. */
  readonly snapshot: DaemonSnapshot;
  /**
   * Live events, in order. Events that arrive before the first listener are
   * kept (up to 1,000) and handed to it when it is added.
   */
  onEvent(listener: (event: DaemonEvent) => void): () => void;
  /** Once, when the connection ends (the daemon stopped, the network dropped, close()). */
  onClose(listener: (reason: string) => void): () => void;
  /** Resolves with the command's result; rejects with the daemon's coded error, `control_timeout` or `control_closed`. */
  send(command: ControlCommand, options?: { timeoutMs?: number }): Promise<unknown>;
  close(): Promise<void>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
const MAX_EARLY_EVENTS = 1_000;
const CLOSE_GRACE_MS = 1_000;
const START_HINT = 'Start it with `median-dev start`';

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/** Reads `<dataDir>/control.json` and connects; no file or a stale one is `daemon_not_running`. */
export async function connectToDaemon(dataDir: string, options: ConnectToDaemonOptions = {}): Promise<ControlClient> {
  const info = await readControlFile(dataDir, options.isAlive ? { isAlive: options.isAlive } : {});
  if (!info || info.isStale) {
    const why = info ? `its process ${info.pid} is gone` : 'there is no control file';
    throw new MedianDevError('daemon_not_running', `No median-dev daemon is running for ${dataDir} (${why}).`, {
      hint: START_HINT,
      details: { isStale: info?.isStale ?? false },
    });
  }
  return connectControl({ ...options, port: info.port, token: info.token });
}

/** Connects to a control channel and resolves once its snapshot arrived. */
export async function connectControl(options: ConnectControlOptions): Promise<ControlClient> {
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 3 * CONTROL_HEARTBEAT_INTERVAL_MS;
  const url = `ws://127.0.0.1:${options.port}/`;

  const eventListeners = new Set<(event: DaemonEvent) => void>();
  const closeListeners = new Set<(reason: string) => void>();
  const pending = new Map<number, Pending>();
  let earlyEvents: DaemonEvent[] = [];
  let nextId = 1;
  let closeReason: string | undefined;
  let closeReasonOverride: string | undefined;
  let closing: Promise<void> | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let connection: WsConnection | undefined;

  let onFirstFrame!: { resolve(snapshot: DaemonSnapshot): void; reject(error: unknown): void };
  const firstFrame = new Promise<DaemonSnapshot>((resolve, reject) => {
    onFirstFrame = { resolve, reject };
  });
  firstFrame.catch(() => {
    /* Awaited in the race below; a rejection after a failed connect is nobody's to handle. */
  });
  let snapshot: DaemonSnapshot | undefined;

  function armHeartbeat(): void {
    if (heartbeatTimeoutMs <= 0 || closeReason !== undefined) return;
    clearTimeout(heartbeatTimer);
    heartbeatTimer = setTimeout(() => {
      closeReasonOverride = 'The daemon stopped answering (no heartbeat).';
      connection?.terminate();
    }, heartbeatTimeoutMs);
    heartbeatTimer.unref();
  }

  function dispatch(event: DaemonEvent): void {
    if (eventListeners.size === 0) {
      earlyEvents.push(event);
      if (earlyEvents.length > MAX_EARLY_EVENTS) earlyEvents.shift();
      return;
    }
    for (const listener of eventListeners) callSafely(listener, event);
  }

  function callSafely<T>(listener: (value: T) => void, value: T): void {
    try {
      listener(value);
    } catch (error) {
      logger.error('control: a listener threw', { error: String(error) });
    }
  }

  function onText(text: string): void {
    armHeartbeat();
    const frame = parseServerFrame(text);
    if (snapshot === undefined) {
      if (frame?.type === 'snapshot') {
        snapshot = frame.snapshot;
        onFirstFrame.resolve(frame.snapshot);
      } else {
        onFirstFrame.reject(new MedianDevError('control_protocol_error', 'The daemon did not start with a snapshot.'));
      }
      return;
    }
    if (!frame) {
      logger.debug('control: ignoring an unreadable frame');
      return;
    }
    if (frame.type === 'event') dispatch(frame.event);
    else if (frame.type === 'result' && typeof frame.id === 'number') {
      const waiting = pending.get(frame.id);
      if (!waiting) return; // Timed out earlier: nobody waits for it any more.
      pending.delete(frame.id);
      clearTimeout(waiting.timer);
      if (frame.ok) waiting.resolve(frame.result);
      else {
        const hint = frame.error.hint === undefined ? {} : { hint: frame.error.hint };
        waiting.reject(new MedianDevError(receivedErrorCode(frame.error.code), frame.error.message, hint));
      }
    }
  }

  function onClose(code: number, reason: string): void {
    clearTimeout(heartbeatTimer);
    closeReason = closeReasonOverride ?? describeClose(code, reason);
    if (snapshot === undefined) {
      onFirstFrame.reject(
        code === 1001
          ? new MedianDevError('daemon_not_running', 'The median-dev daemon is stopping.', { hint: START_HINT })
          : new MedianDevError('control_protocol_error', `The daemon closed the connection before its snapshot: ${closeReason}`),
      );
    }
    for (const [id, waiting] of pending) {
      pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new MedianDevError('control_closed', `The control connection closed: ${closeReason}`));
    }
    for (const listener of closeListeners) callSafely(listener, closeReason);
    closeListeners.clear();
  }

  // One deadline and one signal for the handshake and the snapshot.
  const connecting = new AbortController();
  const deadline = setTimeout(() => {
    connecting.abort(
      new MedianDevError('control_timeout', `The median-dev daemon did not answer on port ${options.port} within ${timeoutMs} ms.`, {
        hint: 'It may be stuck; stop it and run `median-dev start` again.',
      }),
    );
  }, timeoutMs);
  deadline.unref();
  const forwardAbort = (): void => connecting.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', forwardAbort, { once: true });
  const aborted = new Promise<never>((_resolve, reject) => {
    connecting.signal.addEventListener('abort', () => reject(connecting.signal.reason), { once: true });
  });
  aborted.catch(() => {
    /* Only raced below; a late abort must not be an unhandled rejection. */
  });

  try {
    options.signal?.throwIfAborted();
    connection = await openWsConnection({
      url,
      headers: { authorization: `Bearer ${options.token}` },
      maxPayloadBytes: CONTROL_MAX_SERVER_FRAME_BYTES,
      signal: connecting.signal,
      handlers: { onText, onPing: armHeartbeat, onClose },
    });
    armHeartbeat();
    await Promise.race([firstFrame, aborted]);
  } catch (error) {
    clearTimeout(heartbeatTimer);
    connection?.terminate();
    throw error;
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', forwardAbort);
  }
  const open = connection;
  const initial = snapshot as DaemonSnapshot;

  return {
    snapshot: initial,
    onEvent(listener) {
      eventListeners.add(listener);
      if (earlyEvents.length > 0) {
        const early = earlyEvents;
        earlyEvents = [];
        for (const event of early) callSafely(listener, event);
      }
      return () => {
        eventListeners.delete(listener);
      };
    },
    onClose(listener) {
      if (closeReason !== undefined) {
        const reason = closeReason;
        queueMicrotask(() => callSafely(listener, reason));
        return () => {};
      }
      closeListeners.add(listener);
      return () => {
        closeListeners.delete(listener);
      };
    },
    send(command, sendOptions = {}) {
      if (closeReason !== undefined || closing) {
        return Promise.reject(new MedianDevError('control_closed', 'The control connection is closed.'));
      }
      const id = nextId++;
      const commandTimeoutMs = sendOptions.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
      return new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(
            new MedianDevError('control_timeout', `The daemon did not answer "${command.command}" within ${commandTimeoutMs} ms.`),
          );
        }, commandTimeoutMs);
        timer.unref();
        pending.set(id, { resolve, reject, timer });
        if (!open.send(JSON.stringify({ type: 'command', id, command }))) {
          pending.delete(id);
          clearTimeout(timer);
          reject(new MedianDevError('control_closed', 'The control connection is closed.'));
        }
      });
    },
    close() {
      closing ??= (async () => {
        closeReasonOverride ??= 'Closed by this client.';
        await open.close(1000, 'client closing', CLOSE_GRACE_MS);
      })();
      return closing;
    },
  };
}

function describeClose(code: number, reason: string): string {
  if (reason) return reason;
  if (code === 1001) return 'The daemon stopped.';
  if (code === 1006) return 'The connection to the daemon dropped.';
  return `Connection closed (code ${code}).`;
}
