import type { FileHandle } from 'node:fs/promises';
import { isNotRegularFileError, openRegularFile } from '../shared/regular-file.js';
import { errorCode } from '../shared/errors.js';
import { indexPathOf, isLineOfEntry, keyOfParsed, parseIndexHeader, parseIndexLine, parseSegmentLine, type IndexEntry, type ParsedLine } from './call-index-file.js';
import { REPEAT_LINE_START, readLinesForward, type SegmentFile } from './segment-files.js';

const NEWLINE = 0x0a;
/** How an index line of a line that is neither a record nor a repeat starts (see call-index-file.ts). */
const OTHER_LINE_START = Buffer.from('["x",', 'utf8');

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

interface SegmentView {
  path: string;
  handle: FileHandle;
  /** The segment's size when the lookup opened it. */
  size: number;
  /** The index's entry lines (whole lines only), empty when it has none or is not used. */
  body: Buffer;
  /** Segment bytes [0, covered) are named by `body`; the rest is read from the segment. */
  covered: number;
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

/** The index's whole entry lines and the segment bytes they name; undefined when it cannot be used. */
function readIndex(raw: Buffer, inode: string, size: number): { body: Buffer; covered: number } | undefined {
  const headerEnd = raw.indexOf(NEWLINE);
  if (headerEnd === -1 || parseIndexHeader(raw.subarray(0, headerEnd)) !== inode) return undefined;
  const lastNewline = raw.lastIndexOf(NEWLINE);
  const body = raw.subarray(headerEnd + 1, lastNewline + 1);
  if (body.length === 0) return { body, covered: 0 };
  const lastStart = body.lastIndexOf(NEWLINE, body.length - 2) + 1;
  const last = parseIndexLine(body.subarray(lastStart, body.length - 1));
  if (!last || last.offset + last.length + 1 > size) return undefined;
  // Entries name lines without their newline; the next line starts after it.
  return { body, covered: last.offset + last.length + 1 };
}

async function openView(segment: SegmentFile): Promise<SegmentView | undefined> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(segment.path, { noFollow: true });
  } catch (error) {
    // Gone (retention), or no longer a regular file (a link put in its place): nothing of ours to read.
    if (errorCode(error) === 'ENOENT' || isNotRegularFileError(error)) return undefined;
    throw error;
  }
  const { size, ino } = await handle.stat({ bigint: true });
  const view: SegmentView = { path: segment.path, handle, size: Number(size), body: Buffer.alloc(0), covered: 0 };
  let index: FileHandle | undefined;
  try {
    index = await openRegularFile(indexPathOf(segment.path), { noFollow: true });
    const used = readIndex(await index.readFile(), ino.toString(), view.size);
    if (used) Object.assign(view, used);
  } catch {
    // No index, or one that cannot be read (a link, a folder): this segment is read through, as without an index.
  } finally {
    await index?.close();
  }
  return view;
}

/** Lines holding the needle in the index body, oldest first; undefined when a line of it is corrupt. */
function findInBody(view: SegmentView, needle: Buffer): IndexEntry[] | undefined {
  const entries: IndexEntry[] = [];
  const { body } = view;
  let from = 0;
  for (let at = body.indexOf(needle, from); at !== -1; at = body.indexOf(needle, from)) {
    const start = body.lastIndexOf(NEWLINE, at) + 1;
    const end = body.indexOf(NEWLINE, at);
    const entry = parseIndexLine(body.subarray(start, end));
    if (!entry || entry.offset + entry.length >= view.covered) return undefined;
    entries.push(entry);
    from = end + 1;
  }
  return entries;
}

/**
 * Lookups through the call index of each segment (see call-index-file.ts):
 * the index files are read once, then searched for each needle; what they do
 * not name yet (a live segment's newest lines, a segment without a usable
 * index) is read from the segment. Every segment stays open until `close`,
 * so retention deleting one meanwhile changes nothing.
 */
export async function openIndexedLookup(segments: readonly SegmentFile[], onSkipped: (line: Buffer) => void): Promise<IndexedLookup> {
  const opened = await Promise.allSettled(segments.map(openView));
  const views = opened.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
  const failed = opened.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  let read = 0;
  const close = async (): Promise<void> => {
    await Promise.allSettled(views.map((view) => view.handle.close()));
  };
  if (failed) {
    await close();
    throw failed.reason;
  }

  async function findInSegment(view: SegmentView, needle: Buffer): Promise<IndexHit[]> {
    let entries = findInBody(view, needle);
    if (!entries) {
      // A corrupt line: this index names nothing from now on, the segment is read through.
      Object.assign(view, { body: Buffer.alloc(0), covered: 0 });
      entries = [];
    }
    const hits: IndexHit[] = entries.filter((entry) => entry.kind !== 'other').map((entry) => ({ entry, view }));
    // Lines that are neither a record nor a repeat are skipped and counted as a scan would, when they hold the needle.
    for (const entry of findInBody(view, OTHER_LINE_START) ?? []) {
      if (entry.kind !== 'other') continue;
      const line = Buffer.allocUnsafe(entry.length);
      const { bytesRead } = await view.handle.read(line, 0, entry.length, entry.offset);
      if (bytesRead === entry.length && line.includes(needle)) onSkipped(line);
    }
    for await (const { line, offset } of readLinesForward(view.handle, view.covered, view.size)) {
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

  return {
    async find(needle) {
      const perSegment = await Promise.all(views.map((view) => findInSegment(view, needle)));
      return perSegment.reverse().flat();
    },
    async load(hit) {
      if (hit.parsed) return hit.parsed;
      const { offset, length } = hit.entry;
      const line = Buffer.allocUnsafe(length + 1);
      const { bytesRead } = await hit.view.handle.read(line, 0, length + 1, offset);
      const parsed = bytesRead === length + 1 && line[length] === NEWLINE ? parseSegmentLine(line.subarray(0, length)) : undefined;
      if (!isLineOfEntry(parsed, hit.entry)) throw new IndexMismatchError(`The call index of ${hit.view.path} does not match it at ${offset}.`);
      return parsed!;
    },
    linesRead: () => read,
    close,
  };
}
