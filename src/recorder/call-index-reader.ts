import { closeSync, readSync } from 'node:fs';
import { isNotRegularFileError, openRegularFileSync } from '../shared/regular-file.js';
import { errorCode } from '../shared/errors.js';
import { indexPathOf, isLineOfEntry, keyOfParsed, parseIndexHeader, parseIndexLine, parseSegmentLine, type IndexEntry, type ParsedLine } from './call-index-file.js';
import { REPEAT_LINE_START, readLinesForward, type PositionalReader, type SegmentFile } from './segment-files.js';

const NEWLINE = 0x0a;
/** How an index line of a line that is neither a record nor a repeat starts (see call-index-file.ts). */
const OTHER_LINE_START = Buffer.from('["x",', 'utf8');
/** How much of an index is read at a time: searched while it is in the CPU's cache, in a buffer reused for every read. */
const INDEX_CHUNK_BYTES = 64 * 1024;

/** A line of the store whose index entry (or, past the index, whose text) holds what was looked for. */
export interface IndexHit {
  entry: IndexEntry;
  /** The line parsed, when it was read from the segment itself (a part no index names yet). */
  parsed?: ParsedLine;
  view: SegmentView;
}

/** An index entry that does not name the line at its place: the index is not to be trusted. */
export class IndexMismatchError extends Error {
  readonly code = 'index_mismatch';
}

/** An open file read at positions without the thread pool (readSync). */
interface OpenFile extends PositionalReader {
  fd: number;
}

interface SegmentView {
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
}

export interface IndexedLookup {
  /** The lines holding `needle` (a string's JSON text), newest first. */
  find(needle: Buffer): Promise<IndexHit[]>;
  /** The line of a hit, read from its segment and checked against its entry (else `IndexMismatchError`). */
  load(hit: IndexHit): Promise<ParsedLine>;
  /** Segment lines the lookup had to read itself (past or without an index): 0 when every index was whole. */
  linesRead(): number;
  close(): Promise<void>;
}

function openFile(path: string): { file: OpenFile; size: number; inode: bigint } {
  const { fd, stats } = openRegularFileSync(path, { noFollow: true });
  const file: OpenFile = {
    fd,
    read: (buffer, offset, length, position) => Promise.resolve({ bytesRead: readSync(fd, buffer, offset, length, position) }),
  };
  return { file, size: Number(stats.size), inode: stats.ino };
}

/** Reads `[position, position + length)` of `fd` into `buffer` at `offset` (fewer bytes at the file's end); the bytes read. */
function readAt(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
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

function openView(segment: SegmentFile): SegmentView | undefined {
  let opened: ReturnType<typeof openFile>;
  try {
    opened = openFile(segment.path);
  } catch (error) {
    // Gone (retention), or no longer a regular file (a link put in its place): nothing of ours to read.
    if (errorCode(error) === 'ENOENT' || isNotRegularFileError(error)) return undefined;
    throw error;
  }
  const view: SegmentView = { path: segment.path, segment: opened.file, size: opened.size, covered: 0 };
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

/**
 * The entries of the index lines holding one of `needles`, oldest first;
 * undefined when one of those lines is corrupt (or the index shrank). The
 * index is read a chunk at a time into `scratch` (grown when a line does not
 * fit) and each chunk searched while it is in the CPU's cache.
 */
function findInIndex(view: SegmentView, needles: readonly Buffer[], scratch: { buffer: Buffer }): IndexEntry[] | undefined {
  if (!view.index) return [];
  const { file, bodyStart, bodyEnd } = view.index;
  const entries: IndexEntry[] = [];
  let position = bodyStart;
  /** Bytes at the buffer's start carried over from the last read: the start of a line it did not end. */
  let carry = 0;
  while (position < bodyEnd) {
    if (carry === scratch.buffer.length) scratch.buffer = Buffer.concat([scratch.buffer, Buffer.allocUnsafe(scratch.buffer.length)]);
    const { buffer } = scratch;
    const length = Math.min(buffer.length - carry, bodyEnd - position);
    if (readAt(file.fd, buffer, carry, length, position) !== length) return undefined;
    position += length;
    const filled = carry + length;
    // The body ends with a newline (bodyEnd is just past one): only whole lines are searched.
    const end = position === bodyEnd ? filled : buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    const block = buffer.subarray(0, end);
    const lines = new Map<number, number>();
    for (const needle of needles) {
      for (let at = block.indexOf(needle); at !== -1; ) {
        const lineEnd = block.indexOf(NEWLINE, at);
        lines.set(block.lastIndexOf(NEWLINE, at) + 1, lineEnd);
        at = block.indexOf(needle, lineEnd + 1);
      }
    }
    for (const start of [...lines.keys()].sort((a, b) => a - b)) {
      const entry = parseIndexLine(block.subarray(start, lines.get(start)));
      if (!entry || entry.offset + entry.length >= view.covered) return undefined;
      entries.push(entry);
    }
    carry = filled - end;
    buffer.copy(buffer, 0, end, filled);
  }
  return entries;
}

/** How much index a search reads (about a millisecond's work) before it lets the event loop run. */
const YIELD_AFTER_BYTES = 1024 * 1024;
/** Lets the event loop run (a daemon's other work) between two segments' searches, which read without the thread pool. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Lookups through the call index of each segment (see call-index-file.ts):
 * the index files are searched for each needle; what they do not name yet (a
 * live segment's newest lines, a segment without a usable index) is read
 * from the segment. Every segment stays open until `close`, so retention
 * deleting one meanwhile changes nothing. The files are opened and read with
 * synchronous calls, with a turn of the event loop after each megabyte or so
 * of index: a lookup of the oldest of 100,000 records reads about 9 MB of
 * index per needle from the page cache, and each asynchronous open or read
 * was a hop to a libuv thread and back (most of a `show`'s lookup time on 2
 * busy cores); a search holds the loop about a millisecond at a time. A
 * needle asked for again is answered from the first search.
 */
export async function openIndexedLookup(segments: readonly SegmentFile[], onSkipped: (line: Buffer) => void): Promise<IndexedLookup> {
  const views: SegmentView[] = [];
  const close = async (): Promise<void> => {
    for (const view of views.splice(0)) {
      for (const fd of [view.segment.fd, view.index?.file.fd]) {
        try {
          if (fd !== undefined) closeSync(fd);
        } catch {
          // already closed or never usable: nothing left to release
        }
      }
    }
  };
  try {
    for (const segment of segments) {
      const view = openView(segment);
      if (view) views.push(view);
    }
  } catch (error) {
    await close();
    throw error;
  }
  let read = 0;
  const scratch = { buffer: Buffer.allocUnsafe(INDEX_CHUNK_BYTES) };
  const found = new Map<string, Promise<IndexHit[]>>();

  async function findInSegment(view: SegmentView, needle: Buffer): Promise<IndexHit[]> {
    let entries = findInIndex(view, view.others ? [needle] : [needle, OTHER_LINE_START], scratch);
    if (!entries) {
      // A corrupt line: this index names nothing from now on, the segment is read through.
      closeSync(view.index!.file.fd);
      view.index = undefined;
      view.covered = 0;
      entries = [];
    }
    view.others ??= entries.filter((entry) => entry.kind === 'other');
    const hits: IndexHit[] = entries.filter((entry) => entry.kind !== 'other').map((entry) => ({ entry, view }));
    // Lines that are neither a record nor a repeat are skipped and counted as a scan would, when they hold the needle.
    for (const entry of view.index ? view.others : []) {
      const line = Buffer.allocUnsafe(entry.length);
      if (readAt(view.segment.fd, line, 0, entry.length, entry.offset) === entry.length && line.includes(needle)) onSkipped(line);
    }
    for await (const { line, offset } of readLinesForward(view.segment, view.covered, view.size)) {
      read += 1;
      const isRepeat = line.subarray(0, REPEAT_LINE_START.length).equals(REPEAT_LINE_START);
      // Repeat lines name only their record's id: each is kept, for the caller to match.
      if (!isRepeat && !line.includes(needle)) continue;
      const parsed = parseSegmentLine(line);
      if (!parsed) {
        if (!isRepeat) onSkipped(line);
        continue;
      }
      hits.push({ entry: { ...keyOfParsed(parsed), offset, length: line.length }, parsed, view });
    }
    return hits.reverse();
  }

  async function findAll(needle: Buffer): Promise<IndexHit[]> {
    const perSegment: IndexHit[][] = [];
    let searched = 0;
    for (const view of views) {
      if (searched >= YIELD_AFTER_BYTES) {
        await nextTurn();
        searched = 0;
      }
      perSegment.push(await findInSegment(view, needle));
      searched += view.index ? view.index.bodyEnd - view.index.bodyStart : view.size - view.covered;
    }
    return perSegment.reverse().flat();
  }

  return {
    find(needle) {
      const key = needle.toString('latin1');
      let hits = found.get(key);
      if (!hits) found.set(key, (hits = findAll(needle)));
      return hits.then((each) => each.slice());
    },
    async load(hit) {
      if (hit.parsed) return hit.parsed;
      const { offset, length } = hit.entry;
      const line = Buffer.allocUnsafe(length + 1);
      const bytesRead = readAt(hit.view.segment.fd, line, 0, length + 1, offset);
      const parsed = bytesRead === length + 1 && line[length] === NEWLINE ? parseSegmentLine(line.subarray(0, length)) : undefined;
      if (!isLineOfEntry(parsed, hit.entry)) throw new IndexMismatchError(`The call index of ${hit.view.path} does not match it at ${offset}.`);
      return parsed!;
    },
    linesRead: () => read,
    close,
  };
}
