import { safeJson } from '../shared/output-sanitiser.js';
import { randomBytes } from 'node:crypto';
import { MedianDevError, isMedianDevError } from '../shared/errors.js';
import { ensurePrivateDir } from '../shared/private-files.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import { removeControlFileIfOurs, writeControlFile } from './control-file.js';
import type { DaemonSettings } from '../config/resolve-config.js';
import {
  CONTROL_HEARTBEAT_INTERVAL_MS,
  CONTROL_MAX_CLIENT_FRAME_BYTES,
  errorBodyOf,
  parseCommandFrame,
  resultFrameText,
  type CommandId,
} from './control-protocol.js';
import { checkControlUpgrade } from './upgrade-auth.js';
import { startWsServer, type WsPeer, type WsPeerHandlers } from './ws-server.js';

export interface ControlServerOptions {
  /** Where control.json is written (0600, atomically). */
  dataDir: string;
  pid: number;
  instanceId: string;
  proxyUrl: string;
  /** The proxy's replay key, for local clients that send replays through it (`replay`); kept in control.json (0600). */
  replayKey?: string;
  /** Written into control.json for the other commands of the data dir. */
  settings?: DaemonSettings;
  /** The state a new client starts from; events broadcast after it is taken follow it. */
  snapshot(): DaemonSnapshot | Promise<DaemonSnapshot>;
  /** Its result is sent back; a thrown MedianDevError becomes `{ok:false, error:{code,message,hint}}`. */
  handleCommand(command: ControlCommand): Promise<unknown>;
  logger?: Logger;
  /** Loopback only. */
  host?: '127.0.0.1';
  /** Default 15 s. */
  heartbeatIntervalMs?: number;
  /** How long close() waits for a client to answer the close frame; default 1 s. */
  closeGraceMs?: number;
  /** For control.json's `startedAt`. */
  now?: () => Date;
}

export interface ControlServer {
  readonly port: number;
  readonly token: string;
  /** Sends the event to every connected client (after its snapshot). */
  broadcast(event: DaemonEvent): void;
  clientCount(): number;
  /** Rewrites control.json's settings (the target found from the dev server): the other commands of the data dir use them. */
  updateSettings(settings: DaemonSettings): Promise<void>;
  /** Closes clients (1001) and the server, and removes control.json if it is still ours. Idempotent. */
  close(): Promise<void>;
}

/** A client stuck with this much unsent data is dropped instead of growing the daemon's memory. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const DEFAULT_CLOSE_GRACE_MS = 1_000;

interface Client {
  peer: WsPeer;
  /** Frames waiting for the snapshot to go first. */
  outbox: string[] | undefined;
}

/**
 * The daemon's control channel: a token-guarded WebSocket on 127.0.0.1 (random
 * port) that streams a snapshot then live events to `watch` and other clients
 * and runs their commands. Resolves once listening and control.json is written.
 */
export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  const token = randomBytes(32).toString('hex');
  const clients = new Set<Client>();
  let isClosed = false;
  let closing: Promise<void> | undefined;

  function sendTo(client: Client, text: string): void {
    if (client.outbox) client.outbox.push(text);
    else client.peer.send(text);
  }

  function startSnapshot(client: Client): void {
    let taken: DaemonSnapshot | Promise<DaemonSnapshot>;
    try {
      // Taken synchronously at connection time, so a synchronous snapshot and
      // the events broadcast after it neither overlap nor leave a gap.
      taken = options.snapshot();
    } catch (error) {
      failSnapshot(client, error);
      return;
    }
    Promise.resolve(taken).then(
      (snapshot) => {
        let text: string;
        try {
          text = safeJson({ type: 'snapshot', snapshot });
        } catch (error) {
          failSnapshot(client, error);
          return;
        }
        const outbox = client.outbox ?? [];
        client.outbox = undefined;
        client.peer.send(text);
        for (const queued of outbox) client.peer.send(queued);
      },
      (error: unknown) => failSnapshot(client, error),
    );
  }

  function failSnapshot(client: Client, error: unknown): void {
    logger.error('control: the snapshot failed', { error: String(error) });
    client.outbox = undefined;
    client.peer.close(1011, 'The daemon could not take a snapshot');
  }

  async function runCommand(client: Client, id: CommandId, command: ControlCommand): Promise<void> {
    let text: string;
    try {
      const result = await options.handleCommand(command);
      text = resultFrameText(id, { ok: true, result });
    } catch (error) {
      if (isMedianDevError(error)) logger.debug('control: command failed', { command: command.command, code: error.code });
      else logger.error('control: command threw', { command: command.command, error: String(error) });
      text = resultFrameText(id, { ok: false, error: errorBodyOf(error) });
    }
    sendTo(client, text);
  }

  function onConnection(peer: WsPeer): WsPeerHandlers {
    const client: Client = { peer, outbox: [] };
    clients.add(client);
    logger.debug('control: client connected', { clients: clients.size });
    startSnapshot(client);
    return {
      onText(text) {
        const parsed = parseCommandFrame(text);
        if (!parsed.ok) {
          logger.debug('control: bad frame', { code: parsed.error.code });
          sendTo(client, resultFrameText(parsed.id, { ok: false, error: parsed.error }));
          return;
        }
        void runCommand(client, parsed.frame.id, parsed.frame.command);
      },
      onBinary() {
        peer.close(1008, 'The control channel takes JSON text frames only');
      },
      onClose(code) {
        clients.delete(client);
        logger.debug('control: client disconnected', { code, clients: clients.size });
      },
    };
  }

  await ensurePrivateDir(options.dataDir);
  const server = await startWsServer({
    host,
    port: 0,
    maxPayloadBytes: CONTROL_MAX_CLIENT_FRAME_BYTES,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? CONTROL_HEARTBEAT_INTERVAL_MS,
    maxBufferedBytes: MAX_BUFFERED_BYTES,
    checkUpgrade: (headers) => checkControlUpgrade(headers, token),
    onConnection,
    logger,
  });
  const closeGraceMs = options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;

  let contents = {
    port: server.port,
    token,
    pid: options.pid,
    instanceId: options.instanceId,
    startedAt: (options.now?.() ?? new Date()).toISOString(),
    proxyUrl: options.proxyUrl,
    ...(options.replayKey ? { replayKey: options.replayKey } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  };
  try {
    await writeControlFile(options.dataDir, contents);
  } catch (error) {
    await server.close(1001, 'median-dev daemon stopping', 0);
    throw new MedianDevError('control_file_write_failed', `Could not write the control file in ${options.dataDir}: ${String(error)}`, {
      hint: 'Check that the data dir (--data-dir) is writable by you.',
      cause: error,
    });
  }
  logger.debug('control: listening', { port: server.port });

  return {
    port: server.port,
    token,
    broadcast(event) {
      // Nobody attached: no serialising (a call event carries its whole record; at 250 calls/s that was most of the daemon's per-call work).
      if (isClosed || clients.size === 0) return;
      let text: string;
      try {
        text = safeJson({ type: 'event', event });
      } catch (error) {
        logger.error('control: an event could not be serialised', { event: event.event, error: String(error) });
        return;
      }
      for (const client of clients) sendTo(client, text);
    },
    clientCount: () => clients.size,
    async updateSettings(settings) {
      if (isClosed) return;
      contents = { ...contents, settings };
      await writeControlFile(options.dataDir, contents);
    },
    close() {
      closing ??= (async () => {
        isClosed = true;
        const [closed, removed] = await Promise.allSettled([
          server.close(1001, 'median-dev daemon stopping', closeGraceMs),
          removeControlFileIfOurs(options.dataDir, options.instanceId),
        ]);
        if (closed.status === 'rejected') logger.warn('control: closing the server failed', { error: String(closed.reason) });
        if (removed.status === 'rejected') logger.warn('control: could not remove control.json', { error: String(removed.reason) });
      })();
      return closing;
    },
  };
}
