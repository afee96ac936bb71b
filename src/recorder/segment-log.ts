import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, errorCode, type Logger } from '../shared/index.js';
import type { RetentionLimits } from './retention.js';
import { dropOldSegments } from './drop-old-segments.js';
import { createSegment, openSegment, writesAreDurable, type Durability } from './open-segment.js';
import { listSegmentFiles, scanSegment, segmentFileName } from './segment-files.js';
import { LiveIndex, type IndexKey } from './call-index-writer.js';
import { ClosedSegmentFiles, type IndexedSegment } from './closed-segment-files.js';
import { syncFolder } from './sync-folder.js';
import { SegmentSync } from './segment-sync.js';
import { writeAll, writeAllNow } from './write-all.js';
import { HandleCheck } from './handle-check.js';
import { linesFitting, linesWritableNow } from './write-now.js';
import { Segment } from './segment.js';

/**
 * The segment files of one calls folder as the writer sees them: which one
 * is live, when to start the next, the durable append of a batch of lines,
 * and retention. It never rewrites a file; it only appends and deletes whole
 * old segments.
 */
export class SegmentLog {
  private segments: Segment[] = [];
  private lastSeq = 0;
  /** The next write opens a new segment (after a torn end or a failed write). */
  private startNew = false;
  private handle: FileHandle | undefined;
  private handleSeq = -1;
  private prepared = false;
  /** False after a failed write: the folder is made again before the next one (it may have been deleted). */
  private folderChecked = false;
  /** Whether the open handle still is the file at its segment's path. */
  private readonly handleCheck: HandleCheck;
  /** The segment a write on the main thread failed on: made safe (`afterFailedWrite`) before the next write. */
  private failedNow: Segment | undefined;
  /** The open segment's call index (none when it cannot be written; made whole when opened), and closed ones' files in the background. */
  private index: LiveIndex | undefined;
  private readonly closedFiles: ClosedSegmentFiles;
  /** What of the live segment is written but not yet on disk (`os` durability only). */
  private readonly sync: SegmentSync;

  constructor(
    private readonly callsDir: string,
    private readonly limits: RetentionLimits,
    private readonly logger: Logger,
    now: () => number = Date.now,
    private readonly durability: Durability = 'os',
  ) {
    this.closedFiles = new ClosedSegmentFiles(logger);
    this.sync = new SegmentSync(now);
    this.handleCheck = new HandleCheck(now);
  }

  /** Creates the folder (0700) and takes stock of the segments already there. */
  async prepare(): Promise<void> {
    await ensurePrivateDir(this.callsDir, { noFollow: true });
    const segments: Segment[] = [];
    let lastEndsCleanly = true;
    const { segments: files, refused } = await listSegmentFiles(this.callsDir);
    for (const path of refused) this.logger.warn(`${path} is not a regular file (a symbolic link?); median-dev never reads or writes through one in its data dir. Remove it.`, { path });
    const scanned: IndexedSegment[] = []; // what the closed segments' upkeep checks
    for (const file of files) {
      const scan = await scanSegment(file.path);
      segments.push(new Segment(file.seq, file.path, scan.lines, scan.bytes, true));
      scanned.push({ path: file.path, inode: scan.inode, bytes: scan.completeBytes });
      lastEndsCleanly = scan.endsCleanly;
      this.lastSeq = Math.max(this.lastSeq, file.seq);
    }
    this.segments = segments;
    // Never glue a record onto a torn line: a torn end means a fresh segment.
    this.startNew = !lastEndsCleanly;
    this.prepared = true;
    this.folderChecked = true;
    await this.enforceRetention();
    await this.closedFiles.start(scanned.filter((scan, i) => this.segments.some((s) => s.path === scan.path) && (this.startNew || i < scanned.length - 1)));
  }

  get isPrepared(): boolean {
    return this.prepared;
  }

  /** Puts on disk what was written to the live segment since its last sync (fdatasync, on the thread pool); nothing when nothing was. */
  syncLive(): Promise<void> {
    return this.sync.sync(() => this.handle);
  }

  /** Records and bytes kept; bytes written to the live segment since its last disk sync, and when one last completed. */
  totals(): { records: number; bytes: number; unsyncedBytes: number; lastSyncAt: number | undefined } {
    const records = this.segments.reduce((sum, segment) => sum + segment.records, 0);
    const bytes = this.segments.reduce((sum, segment) => sum + segment.bytes, 0);
    return { records, bytes, unsyncedBytes: this.sync.unsyncedBytes, lastSyncAt: this.sync.lastSyncAt };
  }

  /** How many of the next lines go into one write: as many as fit the live segment, at least one. Picks the live segment (a new one when full). */
  fit(lines: readonly { line: Buffer }[]): number {
    return Math.max(linesFitting(this.liveSegment(lines[0]?.line.length ?? 0), lines, this.limits), 1);
  }

  /**
   * Appends whole lines to the live segment, then applies retention. `disk`:
   * on disk when it resolves (an O_DSYNC writev, or write + fdatasync where
   * O_DSYNC is missing); `os`: written to the OS, counted for `syncLive`.
   */
  async append(lines: readonly Buffer[], keys: readonly IndexKey[] = []): Promise<void> {
    const failed = this.failedNow;
    this.failedNow = undefined;
    if (failed) await this.afterFailedWrite(failed);
    if (await this.isHandleGone()) {
      this.logger.warn('The call segment being written was deleted or moved; recording goes on in a new one.', { dir: this.callsDir });
      await this.closeHandle();
      // Takes stock again (the folder may be gone, or hold other files now); throws while it cannot be made.
      this.prepared = false;
      await this.prepare();
    }
    let bytes = 0;
    for (const line of lines) bytes += line.length;
    const live = this.liveSegment(bytes);
    try {
      const handle = await this.openLive(live);
      await writeAll(handle, lines, bytes);
      if (this.durability === 'os') this.sync.wrote(bytes);
      else if (!writesAreDurable(this.durability)) await handle.datasync();
    } catch (error) {
      await this.afterFailedWrite(live);
      throw error;
    }
    this.index?.append(live.bytes, lines, keys);
    live.records += lines.length;
    live.bytes += bytes;
    await this.enforceRetention();
  }

  /**
   * How many of the next lines `appendNow` takes (see write-now.ts); 0 when
   * the next write goes through `append`: `disk` durability, a segment to
   * open, rotate or recover, a disk sync running, the path check due, a
   * drop due.
   */
  writableNow(lines: readonly { line: Buffer }[]): number {
    const live = this.segments.at(-1);
    const handle = this.handle;
    if (this.durability !== 'os' || this.startNew || this.failedNow || !live || !handle || this.handleSeq !== live.seq) return 0;
    if (this.sync.isSyncing || this.handleCheck.isPathCheckDue() || this.handleCheck.isUnlinked(handle)) return 0;
    return linesWritableNow(this.segments, lines, this.limits);
  }

  /** Appends the lines `writableNow` allowed in one writev on the main thread; throws the OS's error (the next `append` recovers). */
  appendNow(lines: readonly Buffer[], keys: readonly IndexKey[]): void {
    const live = this.segments.at(-1)!;
    let bytes = 0;
    for (const line of lines) bytes += line.length;
    try {
      writeAllNow(this.handle!.fd, lines, bytes);
    } catch (error) {
      this.failedNow = live;
      throw error;
    }
    this.sync.wrote(bytes);
    this.index?.append(live.bytes, lines, keys);
    live.records += lines.length;
    live.bytes += bytes;
  }

  async close(): Promise<void> {
    await this.closedFiles.close();
    await this.closeHandle();
  }

  /** Whether the open handle no longer is the file at its segment's path (see HandleCheck). */
  private async isHandleGone(): Promise<boolean> {
    const handle = this.handle;
    if (!handle) return false;
    const segment = this.segments.find((s) => s.seq === this.handleSeq);
    return !segment || (await this.handleCheck.isGone(handle, segment.path));
  }

  /** The segment the next write goes to: the last one, or a new one when it is full or must not be reused (openLive opens it; the recorder's openAhead uses both). */
  liveSegment(nextBytes: number): Segment {
    const last = this.segments.at(-1);
    const full =
      last !== undefined &&
      last.records > 0 &&
      (last.records >= this.limits.segmentMaxRecords || last.bytes + nextBytes > this.limits.segmentMaxBytes);
    if (last && !this.startNew && !full) return last;
    this.startNew = false;
    this.lastSeq += 1;
    const segment = new Segment(this.lastSeq, this.segmentPath(this.lastSeq), 0, 0, false);
    this.segments.push(segment);
    return segment;
  }

  private segmentPath(seq: number): string {
    return join(this.callsDir, segmentFileName(seq));
  }

  /**
   * After a failed write: a segment that got part of the batch may end in a
   * torn line, so the next write starts a new segment; one that got nothing
   * is used again (a long disk-full spell leaves no trail of files).
   */
  private async afterFailedWrite(live: Segment): Promise<void> {
    const handle = this.handleSeq === live.seq ? this.handle : undefined;
    let size: number | undefined;
    try {
      size = handle ? (await handle.stat()).size : undefined;
    } catch {
      size = undefined; // the handle is unusable: assume the worst below
    }
    await this.closeHandle();
    this.folderChecked = false;
    if (!live.onDisk) {
      this.segments = this.segments.filter((s) => s !== live);
      this.lastSeq -= live.seq === this.lastSeq ? 1 : 0;
      return;
    }
    if (size !== live.bytes) {
      if (size !== undefined) live.bytes = size;
      this.startNew = true;
    }
  }

  async openLive(live: Segment): Promise<FileHandle> {
    if (this.handle && this.handleSeq === live.seq) return this.handle;
    await this.closeHandle();
    if (!this.folderChecked) {
      await ensurePrivateDir(this.callsDir, { noFollow: true });
      this.folderChecked = true;
    }
    let handle: FileHandle;
    if (live.onDisk) {
      try {
        handle = await openSegment(live.path, this.durability);
      } catch (error) {
        // A link put where the segment was: refused (said so), and recording goes on in a new segment.
        if (!['ELOOP', 'EMLINK'].includes(errorCode(error) ?? '')) throw error;
        this.logger.warn(`${live.path} became a symbolic link; median-dev does not write through it and records into a new segment. Remove it.`, { path: live.path });
        this.lastSeq += 1;
        live.startOver(this.lastSeq, this.segmentPath(this.lastSeq));
        return this.openLive(live);
      }
    } else {
      // A new segment must really be new: O_EXCL fails on a name someone else took.
      for (;;) {
        try {
          handle = await createSegment(live.path, this.durability);
          break;
        } catch (error) {
          if (errorCode(error) !== 'EEXIST') throw error;
          this.lastSeq = Math.max(this.lastSeq, live.seq) + 1;
          live.renumber(this.lastSeq, this.segmentPath(this.lastSeq));
        }
      }
      live.onDisk = true;
    }
    this.handle = handle;
    this.handleSeq = live.seq;
    // A record names two ids (three for a replay with an id of its own): its filter is sized for a full segment of two.
    this.index = await LiveIndex.open(live.path, handle, live.bytes, 2 * this.limits.segmentMaxRecords);
    this.handleCheck.opened();
    // The mode given to open is cut by the umask and ignored for a file that exists; on the handle, never a path a link could redirect.
    await handle.chmod(0o600).catch(() => {
      /* Windows ignores POSIX modes. */
    });
    // A new segment's name is made durable too.
    if (live.bytes === 0 && live.records === 0) await syncFolder(this.callsDir);
    return handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    const seq = this.handleSeq;
    const made = this.index?.filterSoFar();
    this.index = this.index?.close();
    this.handle = undefined;
    this.handleSeq = -1;
    if (!handle) return;
    // A segment is on disk before it is closed (rotated, replaced, or the store closed).
    const warn = (error: unknown) => this.logger.warn('Could not sync a call segment to the disk; a power cut could lose its last records.', { path: this.callsDir, reason: errorCode(error) });
    await this.sync.flush(handle).catch(warn);
    // Closing a handle whose disk failed can fail again; it is gone either way.
    await handle.close().catch(() => undefined);
    // One no longer the last is written no more: its ids filter is made (but when the store closes: closedFiles stopped).
    const closed = this.segments.find((s) => s.seq === seq && s !== this.segments.at(-1));
    if (closed) this.closedFiles.closed(closed.path, made);
  }

  private enforceRetention(): Promise<void> {
    return dropOldSegments(this.segments, this.limits, this.logger);
  }
}
