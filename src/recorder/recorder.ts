import type { CallRecord } from '../median/index.js';
import { MedianDevError, errorCode, silentLogger, type Logger } from '../shared/index.js';
import { resolveRetention } from './retention.js';
import { createSecretMasker, type SecretMasker } from './secret-masker.js';
import { callsDirOf } from './segment-files.js';
import { SegmentLog } from './segment-log.js';

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
  logger?: Logger;
}

export interface RecorderStats {
  /** Records in the store (complete lines), this writer's count. */
  records: number;
  bytes: number;
  /** True while the last write failed (disk full, folder gone, …). */
  failing: boolean;
}

export interface Recorder {
  /**
   * Masks the record, appends it and resolves with the masked record once it
   * is on disk (written and fdatasync'ed). Concurrent appends share one write
   * and one sync. Rejects with `record_write_failed` when the disk refuses.
   */
  append(record: CallRecord): Promise<CallRecord>;
  stats(): RecorderStats;
  /** Masks one more secret from the next append on (a MEDIAN_KEY that changed); earlier ones stay masked. */
  addSecret(secret: string): void;
  /** Waits for pending appends, then closes the file. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  line: Buffer;
  resolve(): void;
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

  constructor(options: RecorderOptions) {
    this.callsDir = callsDirOf(options.dataDir);
    this.logger = options.logger ?? silentLogger;
    this.log = new SegmentLog(this.callsDir, resolveRetention(options), this.logger);
    this.secrets = [...(options.secrets ?? [])];
    this.redactVisitor = options.redactVisitor ?? false;
    this.masker = createSecretMasker(this.secrets, { redactVisitor: this.redactVisitor });
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

  append(record: CallRecord): Promise<CallRecord> {
    if (this.closing) {
      return Promise.reject(new MedianDevError('recorder_closed', 'The call recorder is closed; nothing more can be recorded.'));
    }
    let masked: CallRecord;
    let line: Buffer;
    try {
      masked = this.masker.maskRecord(record);
      line = Buffer.from(`${JSON.stringify(masked)}\n`, 'utf8');
    } catch (error) {
      return Promise.reject(
        new MedianDevError('invalid_record', 'This call record cannot be written as JSON.', { cause: error }),
      );
    }
    return new Promise<CallRecord>((resolve, reject) => {
      this.queue.push({ line, resolve: () => resolve(masked), reject });
      this.kick();
    });
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
      await this.log.close();
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
      const batch = this.queue.splice(0, this.log.fit(this.queue));
      const data = batch.length === 1 ? batch[0]!.line : Buffer.concat(batch.map((p) => p.line));
      try {
        await this.log.append(data, batch.length);
      } catch (error) {
        const failure = this.noteFailure(error);
        for (const pending of batch) pending.reject(failure);
        continue;
      }
      if (this.failing) this.logger.info('Recording calls works again.', { dir: this.callsDir });
      this.failing = false;
      for (const pending of batch) pending.resolve();
    }
  }
}
