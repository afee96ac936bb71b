import { randomBytes } from 'node:crypto';
import { configKeySource } from './key-source.js';
import { readEnvFile } from '../config/index.js';
import { keyFingerprint, newReplayKey, resolveToolSecret, secretsToMask, type CallRecord } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { errorEvent, type DaemonEvent, type NewDaemonEvent } from '../events/index.js';
import { createCallStore } from '../recorder/index.js';
import { createEventHub } from './event-hub.js';
import { createEventMasker } from './event-masker.js';
import { createDevServerLog, devServerLogPath } from './dev-server-log.js';
import { createSerialQueue } from './serial-queue.js';
import { claimDataDir } from './claim-data-dir.js';
import { createShutdown, type RunningParts } from './shutdown.js';
import type { DaemonOptions } from './daemon-options.js';

/** What every part of one daemon shares: its settings, the data dir, the event hub and masker, the queue, the close order. */
export interface DaemonContext {
  options: DaemonOptions;
  config: DaemonOptions['config'];
  logger: Logger;
  timing: NonNullable<DaemonOptions['timing']>;
  instanceId: string;
  /** Only this daemon and local clients reading control.json (0600) can mark a request as a replay. */
  replayKey: string;
  abort: AbortController;
  /** What the data dir's claim found to say (a crashed daemon's leftovers cleared). */
  startNotes: Awaited<ReturnType<typeof claimDataDir>>['notes'];
  fileVars: Record<string, string>;
  secretFor(key: string | undefined): Uint8Array | undefined;
  store: ReturnType<typeof createCallStore>;
  hub: ReturnType<typeof createEventHub>;
  masker: ReturnType<typeof createEventMasker>;
  secrets: ReturnType<typeof secretsToMask>;
  /** Emits an event, masked first (a `call` event may come stamped: EventHub.emit). */
  emit(event: NewDaemonEvent | DaemonEvent): void;
  /** Each running part's close(), in the order shutdown.ts closes them. */
  running: RunningParts;
  shutdown: () => Promise<void>;
  queue: ReturnType<typeof createSerialQueue>;
}

/**
 * Claims the data dir and builds what every part shares; starts nothing that
 * listens. The lock, the dev server log and the queue are in `running` already.
 */
export async function buildDaemonContext(options: DaemonOptions): Promise<DaemonContext> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const timing = options.timing ?? {};
  const instanceId = randomBytes(8).toString('hex');
  const replayKey = newReplayKey();
  const abort = new AbortController();

  // Nobody else's daemon here, the data dir made and locked, what a crashed one left cleared.
  const { lock, notes: startNotes } = await claimDataDir(config, options.pid);

  const medianKey = config.medianKey;
  const fileVars = config.envFile
    ? await readEnvFile(config.envFile).catch(async (error: unknown) => {
        await lock.release();
        throw error;
      })
    : {};
  const secretFor = (key: string | undefined): Uint8Array | undefined => {
    if (!key && !config.toolSecret) return undefined;
    try {
      return resolveToolSecret({ medianKey: key, toolSecret: config.toolSecret });
    } catch {
      return undefined; // a malformed key: calls are recorded as unchecked, and doctor says why
    }
  };

  const store = createCallStore(config.dataDir);
  const newest = await store.list({ limit: 1 }).catch(() => [] as CallRecord[]);
  const hub = createEventHub({
    version: options.version,
    isDemo: options.isDemo === true,
    keyFingerprint: medianKey ? keyFingerprint(medianKey) : null,
    keySource: medianKey ? configKeySource(config) : null,
    tunnelHost: config.tunnel === 'localtunnel' ? config.tunnelHost : null,
    callCount: await store.count().catch(() => newest.length),
    // A client that attaches reads the newest records from the store; the hub keeps none (snapshot-records.ts).
    store: { read: (limit) => store.list({ limit }), newestAtStart: newest[0]?.id },
    devServerLog: devServerLogPath(config.dataDir),
  });
  // Dev server output, log and error messages reach the screen and the control channel: masked first.
  // Every secret median-dev knows: the key, MEDIAN_TOOL_SECRET, the secret derived from the key.
  const secrets = secretsToMask({ medianKey, toolSecret: config.toolSecret });
  const masker = createEventMasker(secrets, { redactVisitor: config.redactVisitor });
  const emit = (event: NewDaemonEvent | DaemonEvent) => hub.emit(masker.mask(event));

  const running: RunningParts = {};
  running.lock = () => lock.release();
  // The dev server's output goes to a file in the data dir too (masked: events pass the masker first).
  const devServerLog = createDevServerLog({ dataDir: config.dataDir, logger });
  hub.on((event) => devServerLog.take(event));
  running.devServerLog = () => devServerLog.close();
  const shutdown = createShutdown(running, { abort: () => abort.abort(new MedianDevError('daemon_closed', 'The daemon is closing.')), logger });
  const queue = createSerialQueue((error) => {
    if (abort.signal.aborted) return;
    emit(errorEvent(error));
  });
  running.queue = () => queue.close();

  return { options, config, logger, timing, instanceId, replayKey, abort, startNotes, fileVars, secretFor, store, hub, masker, secrets, emit, running, shutdown, queue };
}
