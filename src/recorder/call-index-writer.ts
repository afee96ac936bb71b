import { randomBytes } from 'node:crypto';
import { closeSync, constants, open as openFd, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { openRegularFile } from '../shared/regular-file.js';
import { indexHeader, indexLine, indexPathOf, keyOfParsed, parseIndexHeader, parseIndexLine, parseSegmentLine, type IndexKey } from './call-index-file.js';
import { readLinesForward } from './segment-files.js';
import { idsOfEntry, sizedFilterBuilder, type FilterBuilder } from './ids-filter.js';

export type { IndexKey } from './call-index-file.js';

/**
 * The writer's side of the call index (see call-index-file.ts): the entries
 * of each batch appended to the live segment's index, and indexes rebuilt
 * from their segment when they are missing, lag it or do not match it. None
 * of it is synced or trusted: a lost entry is read from the segment.
 */
const NOFOLLOW = typeof constants.O_NOFOLLOW === 'number' ? constants.O_NOFOLLOW : 0;
const NEWLINE = 0x0a;
/** Enough of an index's end to hold its last line. */
const TAIL_BYTES = 4096;
/** A plain fd (not a FileHandle, which closes its fd when collected): the live index is written synchronously. */
const openRaw = promisify(openFd);
const APPEND = constants.O_WRONLY | constants.O_APPEND | NOFOLLOW;

/**
 * Whether the index of a segment names exactly its first `bytes` bytes (its
 * header names this segment, its last entry ends there, nothing torn after).
 * Reads its first and last few kilobytes only.
 */
export async function isIndexWhole(segmentPath: string, inode: bigint, bytes: number): Promise<boolean> {
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(indexPathOf(segmentPath), { noFollow: true });
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, TAIL_BYTES));
    await handle.read(head, 0, head.length, 0);
    const headerEnd = head.indexOf(NEWLINE);
    if (headerEnd === -1 || parseIndexHeader(head.subarray(0, headerEnd)) !== inode.toString()) return false;
    if (size === headerEnd + 1) return bytes === 0;
    const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
    await handle.read(tail, 0, tail.length, size - tail.length);
    if (tail.at(-1) !== NEWLINE) return false;
    const last = parseIndexLine(tail.subarray(tail.lastIndexOf(NEWLINE, tail.length - 2) + 1, -1));
    return last !== undefined && last.offset + last.length + 1 === bytes;
  } catch {
    return false; // missing, a link, unreadable: not whole
  } finally {
    await handle?.close();
  }
}

/**
 * Writes the index of a segment anew from the segment itself, into a new
 * file renamed over the old one (a reader sees the old or the new, never
 * half). An index written for a segment retention deleted meanwhile is
 * removed again.
 */
export async function rebuildIndex(segmentPath: string): Promise<void> {
  const segment = await openRegularFile(segmentPath, { noFollow: true });
  const indexPath = indexPathOf(segmentPath);
  const temporary = `${indexPath}.tmp-${randomBytes(6).toString('hex')}`;
  let out: FileHandle | undefined;
  try {
    const { ino, size } = await segment.stat({ bigint: true });
    out = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    const parts: string[] = [];
    let pending = 0;
    await out.write(indexHeader(ino));
    for await (const { line, offset } of readLinesForward(segment, 0, Number(size))) {
      parts.push(indexLine(keyOfParsed(parseSegmentLine(line)), offset, line.length));
      pending += 1;
      if (pending >= 1_000) {
        await out.write(parts.splice(0).join(''));
        pending = 0;
      }
    }
    if (parts.length > 0) await out.write(parts.join(''));
    await out.close();
    out = undefined;
    await rename(temporary, indexPath);
    const now = await stat(segmentPath, { bigint: true }).catch(() => undefined);
    if (now?.ino !== ino) await removeIndex(segmentPath);
  } finally {
    await out?.close();
    await unlink(temporary).catch(() => undefined); // gone after the rename; removed after a failure
    await segment.close();
  }
}

/** Removes a segment's index (its segment was deleted). */
export async function removeIndex(segmentPath: string): Promise<void> {
  await unlink(indexPathOf(segmentPath)).catch(() => undefined); // none, or gone already: nothing to remove
}

/**
 * The live segment's index, appended to after each durable batch. A write
 * that fails stops it for this segment (the reader then reads the rest from
 * the segment; the next start rebuilds it): a half-written entry must stay
 * the last line.
 */
export class LiveIndex {
  private fd: number | undefined;
  /**
   * The ids filter of the segment as its lines are written (ids-filter.ts),
   * while every line from its first byte has gone through this index: none
   * for a segment opened part-written, or once a line is neither a record
   * nor a repeat or a write of the index failed.
   */
  private ids: FilterBuilder | undefined;
  /** Where the segment's next line starts, as the index names it. */
  private covered = 0;

  private constructor(fd: number, ids?: FilterBuilder) {
    this.fd = fd;
    this.ids = ids;
  }

  /**
   * For a segment of `bytes` bytes: a fresh index (header only) for a new
   * segment, with its ids filter sized for `expectedIds`, else its index
   * made whole first. Undefined when no index can
   * be written (a link in its place, a read-only folder): recording goes on.
   */
  static async open(segmentPath: string, segment: FileHandle, bytes: number, expectedIds: number): Promise<LiveIndex | undefined> {
    const indexPath = indexPathOf(segmentPath);
    try {
      const { ino } = await segment.stat({ bigint: true });
      if (bytes === 0) {
        const index = new LiveIndex(await openRaw(indexPath, APPEND | constants.O_CREAT | constants.O_TRUNC, 0o600), sizedFilterBuilder(expectedIds));
        index.write(indexHeader(ino));
        return index.fd === undefined ? undefined : index;
      }
      if (!(await isIndexWhole(segmentPath, ino, bytes))) await rebuildIndex(segmentPath);
      return new LiveIndex(await openRaw(indexPath, APPEND));
    } catch {
      return undefined; // no index for this segment: lookups read it through
    }
  }

  /** Names `lines` (each ending in its newline), written from `offset` on. */
  append(offset: number, lines: readonly Buffer[], keys: readonly IndexKey[]): void {
    if (this.fd === undefined || keys.length !== lines.length) {
      this.close();
      return;
    }
    if (offset !== this.covered) this.ids = undefined; // a gap: a line the filter would not hold
    let text = '';
    let at = offset;
    for (let i = 0; i < lines.length; i += 1) {
      const length = lines[i]!.length;
      const key = keys[i]!;
      text += indexLine(key, at, length - 1);
      at += length;
      if (key.kind === 'other') this.ids = undefined;
      else for (const id of idsOfEntry(key)) this.ids?.add(id);
    }
    this.covered = at;
    this.write(Buffer.from(text, 'utf8'));
  }

  /** The ids filter's builder of the segment's first `bytes` bytes, when it holds every line of them (see `ids`). */
  filterSoFar(): { builder: FilterBuilder; bytes: number } | undefined {
    return this.fd !== undefined && this.ids ? { builder: this.ids, bytes: this.covered } : undefined;
  }

  /** A small write to the page cache, synchronous: no thread-pool trip per batch, and batches stay in order. */
  private write(data: Buffer): void {
    if (this.fd === undefined) return;
    try {
      let written = 0;
      while (written < data.length) written += writeSync(this.fd, data, written);
    } catch {
      this.close(); // a full disk: this index stops here, the segment is the truth
    }
  }

  /** Closes it (idempotent); undefined, for `index = index?.close()`. */
  close(): undefined {
    const fd = this.fd;
    this.fd = undefined;
    this.ids = undefined;
    if (fd === undefined) return undefined;
    try {
      closeSync(fd);
    } catch {
      /* already unusable: nothing more to release */
    }
    return undefined;
  }
}
