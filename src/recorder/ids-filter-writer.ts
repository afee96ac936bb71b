import { stat, unlink, type FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../shared/private-files.js';
import { openRegularFile } from '../shared/regular-file.js';
import { indexPathOf, parseIndexHeader, parseIndexLine } from './call-index-file.js';
import { MAX_FILTER_BYTES, buildFilter, filterPathOf, idsOfEntry, parseFilter, type FilterStamp } from './ids-filter.js';

/**
 * The writer's side of the ids filter (see ids-filter.ts): a closed
 * segment's filter made from its call index, and removed with it. Only the
 * recorder writes one, in the background (after a segment is closed, and for
 * closed segments without one when it opens the data dir).
 */
const NEWLINE = 0x0a;
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
 * The ids of every line of a segment, from its index; undefined when the
 * index does not name every line of the segment as it is (`stamp`), one
 * after the other, or names a line that is neither a record nor a repeat
 * (a lookup reports those lines when they hold what it looks for: such a
 * segment's index is always read).
 */
async function idsFromIndex(segmentPath: string, stamp: FilterStamp): Promise<string[] | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openRegularFile(indexPathOf(segmentPath), { noFollow: true });
    const index = await handle.readFile();
    const headerEnd = index.indexOf(NEWLINE);
    if (headerEnd === -1 || parseIndexHeader(index.subarray(0, headerEnd)) !== stamp.inode.toString()) return undefined;
    const ids: string[] = [];
    let expected = 0;
    let lines = 0;
    for (let start = headerEnd + 1; start < index.length; ) {
      const end = index.indexOf(NEWLINE, start);
      if (end === -1) return undefined; // a torn last line: the index lags its segment
      const entry = parseIndexLine(index.subarray(start, end));
      if (!entry || entry.kind === 'other' || entry.offset !== expected) return undefined;
      ids.push(...idsOfEntry(entry));
      expected = entry.offset + entry.length + 1;
      start = end + 1;
      if ((lines += 1) % LINES_PER_TURN === 0) await nextTurn();
    }
    return expected === stamp.bytes ? ids : undefined;
  } catch {
    return undefined; // no index, or not one to trust: no filter
  } finally {
    await handle?.close();
  }
}

/**
 * Writes a closed segment's filter from its index, atomically (a reader sees
 * the old file or the new, never half; a link in its place is replaced, not
 * written through). Nothing is written when the index does not name the
 * whole segment (the next rebuild of the index makes one); a filter written
 * for a segment that changed or was deleted meanwhile is removed again.
 * Whether one was written.
 */
export async function writeFilter(segmentPath: string): Promise<boolean> {
  const segment = await openRegularFile(segmentPath, { noFollow: true });
  let stamp: FilterStamp;
  let ids: string[] | undefined;
  try {
    stamp = await stampOf(segment);
    ids = await idsFromIndex(segmentPath, stamp);
  } finally {
    await segment.close();
  }
  if (ids) await writeFileAtomic(filterPathOf(segmentPath), buildFilter(ids, stamp));
  if (ids && isSameStamp(await stampAt(segmentPath), stamp)) return true;
  await removeFilter(segmentPath);
  return false;
}

/** Removes a segment's filter (its segment was deleted, or its index no longer names it whole). */
export async function removeFilter(segmentPath: string): Promise<void> {
  await unlink(filterPathOf(segmentPath)).catch(() => undefined); // none, or gone already: nothing to remove
}
