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
import { GroupCommit } from './group-commit.js';
import type { Recorder, RecorderOptions, RecorderStats } from './recorder-api.js';

export type { Recorder, RecorderOptions, RecorderStats } from './recorder-api.js';

/** The group commit window with `disk` durability, where each write waits for the disk. */
const DISK_GROUP_COMMIT_MS = 10;

interface Pending {
  line: Buffer;
  /** What the call index names the line by. */
  key: IndexKey;
  /** What append resolves with: the record as written (masked). */
  record: CallRecord;
  resolve(record: CallRecord): void;
  reject(error: unknown): void;
}

/** `text` (printable ASCII) and a newline, as bytes. */
function asciiLine(text: string): Buffer {
  const line = Buffer.allocUnsafe(text.length + 1);
  line.write(text, 0, 'latin1');
  line[text.length] = 0x0a;
  return line;
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
    openAhead: () => writer.openAhead(),
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
  /** A write on the main thread is due at the end of this turn's synchronous code (a microtask). */
  private isWriteDue = false;
  /** The write loop on the thread pool, while it runs. */
  private draining: Promise<void> | undefined;
  private failing = false;
  private closing: Promise<void> | undefined;
  private readonly groupCommit: GroupCommit;
  private readonly durability: Durability;
  private readonly clock: Clock;
  private readonly backgroundSync: BackgroundSync;

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
    this.groupCommit = new GroupCommit(Number.isFinite(groupCommitMs) && groupCommitMs > 0 ? Math.min(groupCommitMs, 1_000) : 0, this.clock);
  }

  addSecret(secret: string): void {
    if (this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    this.masker = createSecretMasker(this.secrets, { redactVisitor: this.redactVisitor });
  }

  prepare(): Promise<void> {
    return this.log.prepare();
  }

  /** The live segment opened on the thread pool, as the write loop would (appends queue behind it). */
  openAhead(): void {
    if (this.draining || this.closing || this.failing || this.queue.length > 0) return;
    this.draining = (async () => {
      if (!this.log.isPrepared) await this.log.prepare();
      await this.log.openLive(this.log.liveSegment(0)); // a new segment that failed to open is the next append's to try again
    })()
      .catch((error: unknown) => this.logger.debug('Opening the live call segment ahead failed; the next append tries again.', { reason: errorCode(error) }))
      .finally(() => {
        this.draining = undefined;
        if (this.queue.length > 0) this.kick();
      });
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
      this.groupCommit.queued(this.queue.length);
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
      // Printable ASCII (most records) has none, and is its own bytes: copied as they are, no UTF-8 encoding.
      line = out.ascii ? asciiLine(out.json) : Buffer.from(`${escapeJsonControls(out.json)}\n`, 'utf8');
    } catch (error) {
      return Promise.reject(
        new MedianDevError('invalid_record', 'This call record cannot be written as JSON.', { cause: error }),
      );
    }
    return this.enqueue(line, masked, indexKeyOf(masked));
  }

  /**
   * Schedules the next write unless one is due or the loop on the thread
   * pool runs (it takes what is queued): in a microtask, so every append
   * made in this turn's synchronous code (the proxy hands over all the
   * records of a turn together) shares one write, and no timer waits.
   */
  private kick(): void {
    if (this.draining || this.isWriteDue) return;
    this.isWriteDue = true;
    queueMicrotask(() => {
      this.isWriteDue = false;
      if (this.draining) return;
      try {
        while (this.queue.length > 0 && this.writeNow()) {
          /* each pass writes one batch */
        }
      } catch (error) {
        this.failAll(error);
      }
      if (this.queue.length > 0) this.startDrain();
    });
  }

  /**
   * Writes the next batch on the main thread when the segment log can take
   * it so (`os` durability, the live segment open; see write-now.ts) and
   * resolves its appends in this same turn; false when it must go through
   * the thread pool.
   */
  private writeNow(): boolean {
    const count = this.groupCommit.waits ? 0 : this.log.writableNow(this.queue);
    if (count === 0) return false;
    const batch = this.queue.splice(0, count);
    this.groupCommit.writing(batch.length);
    try {
      this.log.appendNow(batch.map((p) => p.line), batch.map((p) => p.key));
    } catch (error) {
      const failure = this.noteFailure(error);
      for (const pending of batch) pending.reject(failure);
      return true;
    }
    this.written(batch);
    return true;
  }

  /** Runs the write loop on the thread pool until the queue is empty. */
  private startDrain(): void {
    this.draining = this.drain()
      .catch((error: unknown) => this.failAll(error))
      .finally(() => {
        this.draining = undefined;
        // Appends that came while the loop was winding down.
        if (this.queue.length > 0) this.kick();
      });
  }

  /** A bug, not a disk problem; still, no append may hang and nothing may crash the process. */
  private failAll(error: unknown): void {
    const failure = this.noteFailure(error);
    for (const pending of this.queue.splice(0)) pending.reject(failure);
  }

  private written(batch: readonly Pending[]): void {
    if (this.failing) this.logger.info('Recording calls works again.', { dir: this.callsDir });
    this.failing = false;
    if (this.durability === 'os') this.backgroundSync.written();
    for (const pending of batch) pending.resolve(pending.record);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // A due write runs in the microtask queued before this await's.
      while (this.draining || this.isWriteDue) await (this.draining ?? Promise.resolve());
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
      if (this.writeNow()) continue;
      await this.groupCommit.gather(this.queue.length);
      const batch = this.queue.splice(0, this.log.fit(this.queue));
      this.groupCommit.writing(batch.length);
      try {
        await this.log.append(batch.map((p) => p.line), batch.map((p) => p.key));
      } catch (error) {
        const failure = this.noteFailure(error);
        for (const pending of batch) pending.reject(failure);
        continue;
      }
      this.written(batch);
    }
  }
}
