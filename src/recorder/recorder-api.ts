import type { CallRecord } from '../median/call-record.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { Durability } from './open-segment.js';

/** The recorder's public shape (see recorder.ts): what it is opened with, what it does, what it reports. */
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
   * Appends made in the same turn share one write (concurrent ones while a
   * write runs share the next); with `os`, that write is made and they
   * resolve before the turn ends, when the live segment is open
   * (write-now.ts). Rejects with `record_write_failed` when the disk refuses.
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
  /**
   * Opens the live segment now (creating the first one, its index and the
   * folder's sync) rather than at the first append, whose answer waits for
   * it: for a moment nothing is recorded yet. A failure is left to the
   * next append to meet. Appends made meanwhile wait for it, in order.
   */
  openAhead(): void;
  /** Waits for pending appends, syncs the live segment to the disk, then closes it; no timer is left. Idempotent. */
  close(): Promise<void>;
}

