import { closeSync, readSync } from 'node:fs';
import { isNotRegularFileError, openRegularFileSync } from '../shared/regular-file.js';
import { errorCode } from '../shared/errors.js';
import { indexPathOf, parseIndexHeader, parseIndexLine, type IndexEntry } from './call-index-file.js';
import { MAX_FILTER_BYTES, filterPathOf, parseFilter, type FilterStamp, type IdsFilter } from './ids-filter.js';
import type { PositionalReader, SegmentFile } from './segment-files.js';

// A segment opened for lookups through its call index (call-index-reader.ts): the segment and its index
// open, where the index's entry lines are, and the search of those lines for needles, a chunk at a time.

const NEWLINE = 0x0a;

/** The buffer a lookup's searches share, and how many bytes of index they have read. */
export interface IndexScratch {
  buffer: Buffer;
  bytesRead: number;
}

/** An open file read at positions without the thread pool (readSync). */
export interface OpenFile extends PositionalReader {
  fd: number;
}

/** A segment and its index, open for one lookup. */
export interface SegmentView {
  path: string;
  segment: OpenFile;
  /** The segment's size when the lookup opened it. */
  size: number;
  /** The index, open, and its entry lines (whole lines only): bytes [bodyStart, bodyEnd); none when it is not used. */
  index?: { file: OpenFile; bodyStart: number; bodyEnd: number };
  /** Segment bytes [0, covered) are named by the index's body; the rest is read from the segment. */
  covered: number;
  /** The index's entries of lines that are neither a record nor a repeat, once a search found them (they are searched once). */
  others?: IndexEntry[];
  /** Its ids filter (ids-filter.ts), when it has one made for the segment as it is. */
  filter?: IdsFilter;
}

function openFile(path: string): { file: OpenFile; size: number; inode: bigint; mtimeNs: bigint } {
  const { fd, stats } = openRegularFileSync(path, { noFollow: true });
  const file: OpenFile = {
    fd,
    read: (buffer, offset, length, position) => Promise.resolve({ bytesRead: readSync(fd, buffer, offset, length, position) }),
  };
  return { file, size: Number(stats.size), inode: stats.ino, mtimeNs: stats.mtimeNs };
}

/** The segment's ids filter, when it has one made for it as it is (`stamp`); undefined otherwise (its index is read). */
function readFilter(segmentPath: string, stamp: FilterStamp): IdsFilter | undefined {
  let opened: ReturnType<typeof openFile> | undefined;
  try {
    opened = openFile(filterPathOf(segmentPath));
    if (opened.size > MAX_FILTER_BYTES) return undefined;
    const file = Buffer.allocUnsafe(opened.size);
    return readAt(opened.file.fd, file, 0, file.length, 0) === file.length ? parseFilter(file, stamp) : undefined;
  } catch {
    return undefined; // none (a segment closed before filters, or still being written), a link, unreadable: not used
  } finally {
    if (opened) closeSync(opened.file.fd);
  }
}

/** Reads `[position, position + length)` of `fd` into `buffer` at `offset` (fewer bytes at the file's end); the bytes read. */
export function readAt(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  let filled = 0;
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, offset + filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** Where an index's entry lines are and the segment bytes they name; undefined when it cannot be used. */
function readIndex(fd: number, indexSize: number, inode: bigint, size: number): { bodyStart: number; bodyEnd: number; covered: number } | undefined {
  // The header is a short line (call-index-file.ts): one that does not end within its first 4 KiB is not ours.
  const head = Buffer.allocUnsafe(Math.min(indexSize, 4096));
  const headLength = readAt(fd, head, 0, head.length, 0);
  const headerEnd = head.subarray(0, headLength).indexOf(NEWLINE);
  if (headerEnd === -1 || parseIndexHeader(head.subarray(0, headerEnd)) !== inode.toString()) return undefined;
  const bodyStart = headerEnd + 1;
  // The last whole entry line: read from the end, a larger tail each time, until its start is in it.
  for (let tailLength = Math.min(indexSize - bodyStart, 4096); tailLength > 0; tailLength = Math.min(indexSize - bodyStart, tailLength * 4)) {
    const tailStart = indexSize - tailLength;
    const tail = Buffer.allocUnsafe(tailLength);
    if (readAt(fd, tail, 0, tailLength, tailStart) !== tailLength) return undefined; // shorter than its size: changed under us
    const lastNewline = tail.lastIndexOf(NEWLINE);
    const previous = lastNewline <= 0 ? -1 : tail.lastIndexOf(NEWLINE, lastNewline - 1);
    if (previous === -1 && tailStart > bodyStart) continue; // the last line starts before this tail
    if (lastNewline === -1) break; // no whole entry line yet
    const last = parseIndexLine(tail.subarray(previous + 1, lastNewline));
    if (!last || last.offset + last.length + 1 > size) return undefined;
    // Entries name lines without their newline; the next line starts after it.
    return { bodyStart, bodyEnd: tailStart + lastNewline + 1, covered: last.offset + last.length + 1 };
  }
  return { bodyStart, bodyEnd: bodyStart, covered: 0 };
}

export function openView(segment: SegmentFile): SegmentView | undefined {
  let opened: ReturnType<typeof openFile>;
  try {
    opened = openFile(segment.path);
  } catch (error) {
    // Gone (retention), or no longer a regular file (a link put in its place): nothing of ours to read.
    if (errorCode(error) === 'ENOENT' || isNotRegularFileError(error)) return undefined;
    throw error;
  }
  const view: SegmentView = { path: segment.path, segment: opened.file, size: opened.size, covered: 0 };
  const filter = readFilter(segment.path, { inode: opened.inode, bytes: opened.size, mtimeNs: opened.mtimeNs });
  if (filter) view.filter = filter;
  let index: ReturnType<typeof openFile> | undefined;
  try {
    index = openFile(indexPathOf(segment.path));
    const used = readIndex(index.file.fd, index.size, opened.inode, view.size);
    if (used) {
      view.index = { file: index.file, bodyStart: used.bodyStart, bodyEnd: used.bodyEnd };
      view.covered = used.covered;
      index = undefined; // kept open for the searches
    }
  } catch {
    // No index, or one that cannot be read (a link, a folder): this segment is read through, as without an index.
  } finally {
    if (index) closeSync(index.file.fd);
  }
  return view;
}

/** An index entry a search found, and which of its needles (bit i: `needles[i]`) its line holds. */
export interface MatchedEntry {
  entry: IndexEntry;
  mask: number;
}

/**
 * The entries of the index lines holding one of `needles` (at most 31),
 * oldest first; undefined when one of those lines is corrupt (or the index
 * shrank). The index is read a chunk at a time into `scratch` (grown when a
 * line does not fit) and each chunk searched for every needle while it is in
 * the CPU's cache.
 */
export function findInIndex(view: SegmentView, needles: readonly Buffer[], scratch: IndexScratch): MatchedEntry[] | undefined {
  if (!view.index) return [];
  const { file, bodyStart, bodyEnd } = view.index;
  const entries: MatchedEntry[] = [];
  let position = bodyStart;
  /** Bytes at the buffer's start carried over from the last read: the start of a line it did not end. */
  let carry = 0;
  while (position < bodyEnd) {
    if (carry === scratch.buffer.length) scratch.buffer = Buffer.concat([scratch.buffer, Buffer.allocUnsafe(scratch.buffer.length)]);
    const { buffer } = scratch;
    const length = Math.min(buffer.length - carry, bodyEnd - position);
    if (readAt(file.fd, buffer, carry, length, position) !== length) return undefined;
    scratch.bytesRead += length;
    position += length;
    const filled = carry + length;
    // The body ends with a newline (bodyEnd is just past one): only whole lines are searched.
    const end = position === bodyEnd ? filled : buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    const block = buffer.subarray(0, end);
    const lines = new Map<number, { end: number; mask: number }>();
    needles.forEach((needle, i) => {
      for (let at = block.indexOf(needle); at !== -1; ) {
        const lineEnd = block.indexOf(NEWLINE, at);
        const start = block.lastIndexOf(NEWLINE, at) + 1;
        const line = lines.get(start);
        if (line) line.mask |= 1 << i;
        else lines.set(start, { end: lineEnd, mask: 1 << i });
        at = block.indexOf(needle, lineEnd + 1);
      }
    });
    for (const start of [...lines.keys()].sort((a, b) => a - b)) {
      const line = lines.get(start)!;
      const entry = parseIndexLine(block.subarray(start, line.end));
      if (!entry || entry.offset + entry.length >= view.covered) return undefined;
      entries.push({ entry, mask: line.mask });
    }
    carry = filled - end;
    buffer.copy(buffer, 0, end, filled);
  }
  return entries;
}
