import { stat, unlink, type FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../shared/private-files.js';
import { openRegularFile } from '../shared/regular-file.js';
import { indexPathOf, parseIndexHeader, parseIndexLine } from './call-index-file.js';
import { MAX_FILTER_BYTES, countedFilterBuilder, filterPathOf, idsOfEntry, parseFilter, type FilterBuilder, type FilterStamp } from './ids-filter.js';

/**
 * The writer's side of the ids filter (see ids-filter.ts): a closed
 * segment's filter written (the one the recorder made as it wrote the
 * segment, else one made from its call index), and removed with it. Only
 * the recorder writes one, in the background (after a segment is closed,
 * and for closed segments without one when it opens the data dir).
 */
const NEWLINE = 0x0a;
/** How much of an index is read at a time. */
const CHUNK_BYTES = 64 * 1024;
/** Index lines parsed between two turns of the event loop (about a millisecond's work). */
const LINES_PER_TURN = 250;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function stampOf(handle: FileHandle): Promise<FilterStamp> {
  const { ino, size, mtimeNs } = await handle.stat({ bigint: true });
  return { inode: ino, bytes: Number(size), mtimeNs };
}

async function stampAt(path: string): Promise<FilterStamp | undefined> {
  const now = await stat(path, { bigint: true }).catch(() => undefined); // gone: no stamp
  return now && { inode: now.ino, bytes: Number(now.size), mtimeNs: now.mtimeNs };
}

const isSameStamp = (a: FilterStamp | undefined, b: FilterStamp): boolean => a?.inode === b.inode && a.bytes === b.bytes && a.mtimeNs === b.mtimeNs;

/** Whether the segment at `segmentPath` has a filter made for it as it is now. */
export async function hasFilter(segmentPath: string): Promise<boolean> {
  const stamp = await stampAt(segmentPath);
  if (!stamp) return false;
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(filterPathOf(segmentPath), { noFollow: true });
    const { size } = await handle.stat();
    if (size > MAX_FILTER_BYTES) return false;
    const file = Buffer.alloc(size);
    await handle.read(file, 0, size, 0);
    return parseFilter(file, stamp) !== undefined;
  } catch {
    return false; // missing, a link, unreadable: none to use
  } finally {
    await handle?.close();
  }
}

/**
 * The filter of a segment's lines, from its index, read a chunk at a time
 * into one buffer (the daemon's memory does not follow the index's size);
 * undefined when the index does not name every line of the segment as it
 * is (`stamp`), one after the other, or names a line that is neither a
 * record nor a repeat (a lookup reports those lines when they hold what it
 * looks for: such a segment's index is always read).
 */
async function filterFromIndex(segmentPath: string, stamp: FilterStamp): Promise<Buffer | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(indexPathOf(segmentPath), { noFollow: true });
    const builder = countedFilterBuilder();
    let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let filled = 0;
    let position = 0;
    let isHeader = true;
    let expected = 0;
    let lines = 0;
    for (;;) {
      if (filled === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]); // a line longer than a chunk
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      filled += bytesRead;
      let start = 0;
      for (let end = buffer.indexOf(NEWLINE, start); end !== -1 && end < filled; end = buffer.indexOf(NEWLINE, start)) {
        const line = buffer.subarray(start, end);
        start = end + 1;
        if (isHeader) {
          if (parseIndexHeader(line) !== stamp.inode.toString()) return undefined;
          isHeader = false;
          continue;
        }
        const entry = parseIndexLine(line);
        if (!entry || entry.kind === 'other' || entry.offset !== expected) return undefined;
        for (const id of idsOfEntry(entry)) builder.add(id);
        expected = entry.offset + entry.length + 1;
        if ((lines += 1) % LINES_PER_TURN === 0) await nextTurn();
      }
      buffer.copy(buffer, 0, start, filled);
      filled -= start;
    }
    // A torn last line (bytes after the last newline) means the index lags its segment.
    return !isHeader && filled === 0 && expected === stamp.bytes ? builder.build(stamp) : undefined;
  } catch {
    return undefined; // no index, or not one to trust: no filter
  } finally {
    await handle?.close();
  }
}

/** A filter the writer made as it wrote a segment: its ids, hashed, and the segment bytes they are the ids of. */
export interface FilterSoFar {
  builder: FilterBuilder;
  bytes: number;
}

/**
 * Writes a closed segment's filter: `made` when it names every byte of the
 * segment as it is now (the writer's own, no index read), else one made
 * from its index. Atomically (a reader sees the old file or the new, never
 * half; a link in its place is replaced, not written through). Nothing is
 * written when neither names the whole segment (the next rebuild of the
 * index makes one); a filter written for a segment that changed or was
 * deleted meanwhile is removed again. Whether one was written.
 */
export async function writeFilter(segmentPath: string, made?: FilterSoFar): Promise<boolean> {
  const segment = await openRegularFile(segmentPath, { noFollow: true });
  let stamp: FilterStamp;
  let filter: Buffer | undefined;
  try {
    stamp = await stampOf(segment);
    filter = made?.bytes === stamp.bytes ? made.builder.build(stamp) : await filterFromIndex(segmentPath, stamp);
  } finally {
    await segment.close();
  }
  if (filter) await writeFileAtomic(filterPathOf(segmentPath), filter);
  if (filter && isSameStamp(await stampAt(segmentPath), stamp)) return true;
  await removeFilter(segmentPath);
  return false;
}

/** Removes a segment's filter (its segment was deleted, or its index no longer names it whole). */
export async function removeFilter(segmentPath: string): Promise<void> {
  await unlink(filterPathOf(segmentPath)).catch(() => undefined); // none, or gone already: nothing to remove
}
