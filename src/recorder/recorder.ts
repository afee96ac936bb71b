import { withRepeats, type CallRecord, type RepeatLine } from '../median/call-record.js';
import { MedianDevError, errorCode } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { resolveRetention } from './retention.js';
import { createSecretMasker, type SecretMasker } from '../shared/secret-masker.js';
import { escapeJsonControls } from '../shared/output-sanitiser.js';
import { callsDirOf } from './segment-files.js';
import { SegmentLog } from './segment-log.js';
import { indexKeyOf, type IndexKey } from './call-index-file.js';
import type { Durability } from './open-segment.js';
import { BackgroundSync } from './background-sync.js';

export interface RecorderOptions {
  dataDir: string;
  /** Values masked wherever they appear (MEDIAN_KEY, MEDIAN_TOOL_SECRET, …). */
  secrets?: string[];
  /** Mask `context.visitor` email and name. */
  redactVisitor?: boolean;
  /** Retention: newest records kept (default 50,000). */
  maxRecords?: number;
  /** Retention: bytes kept (default 500 MB). */
  maxBytes?: number;
  /** A segment is closed after this many records (default 5,000)… */
  segmentMaxRecords?: number;
  /** …or this many bytes (default 50 MB). */
  segmentMaxBytes?: number;
  /**
   * What an append's resolving (the end of the call's answer) promises: `os`
   * (default) written to the OS, on the disk within `DISK_SYNC_BOUND_MS`;
   * `disk` on the disk (O_DSYNC writes, the group commit below).
   */
  durability?: Durability;
  /**
   * Group commit: while appends come concurrently (the last write took more
   * than one), writes start at most this often, so each carries more
   * records; 0 writes whenever a write is free (records that queue during a
   * write share the next). Default 10 ms with `disk` durability (each write
   * costs a disk sync), 0 with `os`. An append that comes alone (after the
   * last one resolved) is written at once, and so are 128 waiting records.
   */
  groupCommitMs?: number;
  /**
   * The group commit's wait, the background disk sync's timer and the open
   * segment's check for a replaced file (at most once a second) run on it;
   * real time when left out. Tests of the store drive it; the daemon leaves
   * it out, so a daemon test on a manual clock never holds its calls' writes
   * until it moves time.
   */
  clock?: Clock;
  logger?: Logger;
}

/** The group commit window with `disk` durability, where each write waits for the disk. */
const DISK_GROUP_COMMIT_MS = 10;
/** This many waiting records are written without waiting out the group commit time. */
const GROUP_COMMIT_RECORDS = 128;

export interface RecorderStats {
  /** Records in the store (complete lines), this writer's count. */
  records: number;
  bytes: number;
  /** True while the last write failed (disk full, folder gone, …). */
  failing: boolean;
  /** Bytes written to the OS, not yet synced to the disk (0 with `disk`); when a sync last completed (clock ms). */
  unsyncedBytes: number;
  lastSyncAt: number | undefined;
}

export interface Recorder {
  /**
   * Masks the record, appends it and resolves with the masked record once it
   * is written: to the OS (`os` durability, synced to the disk in the
   * background) or on the disk (`disk`: written and fdatasync'ed).
   * Concurrent appends share one write. Rejects with `record_write_failed`
   * when the disk refuses.
   */
  append(record: CallRecord): Promise<CallRecord>;
  /**
   * The record (as `append` resolved it) was made again with the same
   * outcome: appends a small repeat line (`{repeatOf, repeats, lastAt}`),
   * which readers apply to it, and resolves with the record so updated. A
   * line lost in a crash loses that count only.
   */
  appendRepeat(record: CallRecord, repeat: { repeats: number; lastAt: string }): Promise<CallRecord>;
  stats(): RecorderStats;
  /** Masks one more secret from the next append on (a MEDIAN_KEY that changed); earlier ones stay masked. */
  addSecret(secret: string): void;
  /** Waits for pending appends, syncs the live segment to the disk, then closes it; no timer is left. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  line: Buffer;
  /** What the call index names the line by. */
  key: IndexKey;
  /** What append resolves with: the record as written (masked). */
  record: CallRecord;
  resolve(record: CallRecord): void;
  reject(error: unknown): void;
}

/**
 * Opens the call store for writing. It never fails on an unusable folder:
 * the recorder then reports `failing` and each append rejects with
 * `record_write_failed` (and tries the folder again), so a full disk never
 * stops the proxy. One writer per data dir; readers need no lock.
 */
export async function openRecorder(options: RecorderOptions): Promise<Recorder> {
  const writer = new CallWriter(options);
  await writer.prepare().catch((error: unknown) => writer.noteFailure(error));
  return {
    append: (record) => writer.append(record),
    appendRepeat: (record, repeat) => writer.appendRepeat(record, repeat),
    stats: () => writer.stats(),
    addSecret: (secret) => writer.addSecret(secret),
    close: () => writer.close(),
  };
}

class CallWriter {
  private readonly callsDir: string;
  private readonly log: SegmentLog;
  private readonly secrets: string[];
  private readonly redactVisitor: boolean;
  private masker: SecretMasker;
  private readonly logger: Logger;
  private queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private failing = false;
  private closing: Promise<void> | undefined;
  private readonly groupCommitMs: number;
  private readonly durability: Durability;
  private readonly clock: Clock;
  private readonly backgroundSync: BackgroundSync;
  /** When the last durable write started, and how many records it took. */
  private lastWriteAt = 0;
  private lastWriteRecords = 0;
  /** Ends the group commit wait early (set while it runs). */
  private endGatherWait: (() => void) | undefined;

  constructor(options: RecorderOptions) {
    this.callsDir = callsDirOf(options.dataDir);
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.durability = options.durability ?? 'os';
    const log = (this.log = new SegmentLog(this.callsDir, resolveRetention(options), this.logger, () => this.clock.now(), this.durability));
    this.backgroundSync = new BackgroundSync({ clock: this.clock, logger: this.logger, dir: this.callsDir, sync: () => log.syncLive(), hasUnsynced: () => log.totals().unsyncedBytes > 0 });
    this.secrets = [...(options.secrets ?? [])];
    this.redactVisitor = options.redactVisitor ?? false;
    this.masker = createSecretMasker(this.secrets, { redactVisitor: this.redactVisitor });
    const groupCommitMs = options.groupCommitMs ?? (this.durability === 'disk' ? DISK_GROUP_COMMIT_MS : 0);
    this.groupCommitMs = Number.isFinite(groupCommitMs) && groupCommitMs > 0 ? Math.min(groupCommitMs, 1_000) : 0;
  }

  addSecret(secret: string): void {
    if (this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    this.masker = createSecretMasker(this.secrets, { redactVisitor: this.redactVisitor });
  }

  prepare(): Promise<void> {
    return this.log.prepare();
  }

  stats(): RecorderStats {
    return { ...this.log.totals(), failing: this.failing };
  }

  appendRepeat(record: CallRecord, repeat: { repeats: number; lastAt: string }): Promise<CallRecord> {
    if (this.closing) {
      return Promise.reject(new MedianDevError('recorder_closed', 'The call recorder is closed; nothing more can be recorded.'));
    }
    const line: RepeatLine = { repeatOf: record.id, repeats: repeat.repeats, lastAt: repeat.lastAt };
    return this.enqueue(Buffer.from(`${JSON.stringify(line)}\n`, 'utf8'), withRepeats(record, repeat), { kind: 'repeat', repeatOf: record.id });
  }

  private enqueue(line: Buffer, record: CallRecord, key: IndexKey): Promise<CallRecord> {
    return new Promise<CallRecord>((resolve, reject) => {
      this.queue.push({ line, key, record, resolve, reject });
      if (this.endGatherWait && this.queue.length >= GROUP_COMMIT_RECORDS) this.endGatherWait();
      this.kick();
    });
  }

  append(record: CallRecord): Promise<CallRecord> {
    if (this.closing) {
      return Promise.reject(new MedianDevError('recorder_closed', 'The call recorder is closed; nothing more can be recorded.'));
    }
    let masked: CallRecord;
    let line: Buffer;
    try {
      // Serialized once; walked and copied only when something in it needs masking.
      const out = this.masker.maskToJson(record);
      masked = out.record;
      // C1 controls and bidi overrides as JSON escapes: `tail -f` on a segment prints nothing a terminal acts on.
      line = Buffer.from(`${escapeJsonControls(out.json)}\n`, 'utf8');
    } catch (error) {
      return Promise.reject(
        new MedianDevError('invalid_record', 'This call record cannot be written as JSON.', { cause: error }),
      );
    }
    return this.enqueue(line, masked, indexKeyOf(masked));
  }

  /** Starts the drain loop unless it runs; on a later tick, so appends made together share one write and one sync. */
  private kick(): void {
    if (this.draining) return;
    this.draining = Promise.resolve()
      .then(() => this.drain())
      .catch((error: unknown) => {
        // A bug, not a disk problem; still, no append may hang and nothing may crash the process.
        const failure = this.noteFailure(error);
        for (const pending of this.queue.splice(0)) pending.reject(failure);
      })
      .finally(() => {
        this.draining = undefined;
        // Appends that came while the loop was winding down.
        if (this.queue.length > 0) this.kick();
      });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.draining) await this.draining;
      this.backgroundSync.stop();
      await this.log.close(); // syncs the live segment (after a background sync that runs)
    })();
    return this.closing;
  }

  noteFailure(error: unknown): MedianDevError {
    const failure = new MedianDevError(
      'record_write_failed',
      `Could not record the call in ${this.callsDir}: ${error instanceof Error ? error.message : String(error)}`,
      {
        hint: 'Check that the data dir (--data-dir) is a writable folder and that the disk is not full.',
        cause: error,
        details: { dir: this.callsDir, reason: errorCode(error) },
      },
    );
    if (!this.failing) this.logger.warn(failure.message, { code: failure.code, reason: errorCode(error) });
    this.failing = true;
    return failure;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      if (!this.log.isPrepared) {
        try {
          await this.log.prepare();
        } catch (error) {
          const failure = this.noteFailure(error);
          for (const pending of this.queue.splice(0)) pending.reject(failure);
          return;
        }
      }
      await this.gatherBatch();
      const batch = this.queue.splice(0, this.log.fit(this.queue));
      const lines = batch.map((p) => p.line);
      const keys = batch.map((p) => p.key);
      this.lastWriteAt = this.clock.now();
      this.lastWriteRecords = batch.length;
      try {
        await this.log.append(lines, keys);
      } catch (error) {
        const failure = this.noteFailure(error);
        for (const pending of batch) pending.reject(failure);
        continue;
      }
      if (this.failing) this.logger.info('Recording calls works again.', { dir: this.callsDir });
      this.failing = false;
      if (this.durability === 'os') this.backgroundSync.written();
      for (const pending of batch) pending.resolve(pending.record);
    }
  }

  /**
   * Under concurrent load, waits until `groupCommitMs` after the last write
   * started, so the records that arrive meanwhile share the next write and
   * its sync (each sync costs the disk, the kernel and a thread-pool trip).
   */
  private async gatherBatch(): Promise<void> {
    if (this.groupCommitMs === 0 || this.lastWriteRecords < 2 || this.queue.length >= GROUP_COMMIT_RECORDS) return;
    // At most groupCommitMs, even when the wall clock was set back meanwhile.
    const wait = Math.min(this.groupCommitMs, this.lastWriteAt + this.groupCommitMs - this.clock.now());
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      // Keeps the process alive: appends are waiting on it, and it ends within groupCommitMs.
      const timer = this.clock.setTimer(done, wait, { keepsProcessAlive: true });
      function done(): void {
        timer.cancel();
        resolve();
      }
      this.endGatherWait = done;
    });
    this.endGatherWait = undefined;
  }
}
