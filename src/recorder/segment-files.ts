import { readdirSync } from 'node:fs';
import { isNotRegularFileError, openRegularFile } from '../shared/regular-file.js';
import { join } from 'node:path';

/**
 * The on-disk layout of the call store, shared by the writer and the reader:
 * `<dataDir>/calls/calls-000001.jsonl`, … — one JSON record per line, a line
 * counts only once its `\n` is on disk (a line without one is torn or still
 * being written, and readers skip it).
 */
export const CALLS_DIR_NAME = 'calls';
const SEGMENT_PATTERN = /^calls-(\d{6,})\.jsonl$/;
const NEWLINE = 0x0a;
const READ_CHUNK_BYTES = 64 * 1024;

export interface SegmentFile {
  seq: number;
  path: string;
}

export function callsDirOf(dataDir: string): string {
  return join(dataDir, CALLS_DIR_NAME);
}

export function segmentFileName(seq: number): string {
  return `calls-${String(seq).padStart(6, '0')}.jsonl`;
}

/**
 * The segments in a calls folder, oldest first; none when it does not exist.
 * Only regular files count: a symlink (or anything else) named like a
 * segment is never read or written through, it is listed in `refused`.
 * Listed with one synchronous call (a folder of a few dozen names): an
 * asynchronous readdir was a hop to a libuv thread and back, and the first
 * such hop of a process starts the thread pool (`show` uses none otherwise).
 */
export async function listSegmentFiles(callsDir: string): Promise<{ segments: SegmentFile[]; refused: string[] }> {
  let entries;
  try {
    entries = readdirSync(callsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { segments: [], refused: [] };
    throw error;
  }
  const segments: SegmentFile[] = [];
  const refused: string[] = [];
  for (const entry of entries) {
    const match = SEGMENT_PATTERN.exec(entry.name);
    if (match?.[1] === undefined) continue;
    const path = join(callsDir, entry.name);
    if (entry.isFile()) segments.push({ seq: Number(match[1]), path });
    else refused.push(path);
  }
  return { segments: segments.sort((a, b) => a.seq - b.seq), refused };
}

/** The segments (regular files) in a calls folder, oldest first. */
export async function listSegments(callsDir: string): Promise<SegmentFile[]> {
  return (await listSegmentFiles(callsDir)).segments;
}

/** How the recorder starts a repeat line (`{"repeatOf": …}`, see RepeatLine): a count, not a record. */
export const REPEAT_LINE_START = Buffer.from('{"repeatOf":', 'utf8');

export interface SegmentScan {
  /** Complete (newline-terminated) lines. */
  lines: number;
  /** Of those, repeat lines (not records). */
  repeatLines: number;
  bytes: number;
  /** Bytes up to the end of the last complete line. */
  completeBytes: number;
  /** The file's inode (the call index names it). */
  inode: bigint;
  /** True when the file is empty or ends with a newline (nothing torn at the end). */
  endsCleanly: boolean;
}

/** Counts the complete lines of a segment (and its repeat lines) and tells whether its end is torn. */
export async function scanSegment(path: string): Promise<SegmentScan> {
  const handle = await openRegularFile(path, { noFollow: true });
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    const prefix = REPEAT_LINE_START;
    let lines = 0;
    let repeatLines = 0;
    let bytes = 0;
    let last = NEWLINE;
    let completeBytes = 0;
    const { ino } = await handle.stat({ bigint: true });
    /** Bytes of the repeat prefix the current line starts with so far; -1 once it does not. */
    let matched = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, bytes);
      if (bytesRead === 0) break;
      let pos = 0;
      while (pos < bytesRead) {
        if (matched >= 0 && matched < prefix.length) {
          // A line start may straddle two reads: match what this read holds and go on in the next.
          const n = Math.min(prefix.length - matched, bytesRead - pos);
          matched = buffer.compare(prefix, matched, matched + n, pos, pos + n) === 0 ? matched + n : -1;
        }
        const at = buffer.indexOf(NEWLINE, pos);
        if (at === -1 || at >= bytesRead) break;
        lines += 1;
        completeBytes = bytes + at + 1;
        if (matched === prefix.length) repeatLines += 1;
        matched = 0;
        pos = at + 1;
      }
      last = buffer[bytesRead - 1] ?? NEWLINE;
      bytes += bytesRead;
    }
    return { lines, repeatLines, bytes, completeBytes, inode: ino, endsCleanly: last === NEWLINE };
  } finally {
    await handle.close();
  }
}

/**
 * The complete lines of a file from the last to the first, read backwards in
 * chunks, so the newest records cost only what they weigh. The file is read
 * up to the size it had when opened; a trailing fragment without a newline
 * (torn by a crash, or being written right now) is skipped. A file that is
 * gone (deleted by retention) yields nothing.
 */
export async function* readLinesBackward(path: string, chunkBytes = READ_CHUNK_BYTES): AsyncGenerator<Buffer> {
  let handle;
  try {
    handle = await openRegularFile(path, { noFollow: true });
  } catch (error) {
    // Gone (retention), or no longer a regular file (a link put in its place): nothing of ours to read.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || isNotRegularFileError(error)) return;
    throw error;
  }
  try {
    let position = (await handle.stat()).size;
    // Bytes after the last newline seen so far, not yet a whole line.
    let carry: Buffer | undefined;
    let atEnd = true;
    while (position > 0) {
      const length = Math.min(chunkBytes, position);
      position -= length;
      const chunk = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(chunk, filled, length - filled, position + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const block = carry ? Buffer.concat([chunk.subarray(0, filled), carry]) : chunk.subarray(0, filled);
      let end = block.length;
      let cut = block.lastIndexOf(NEWLINE, end - 1);
      if (atEnd) {
        // Whatever follows the file's last newline is torn or in flight.
        if (cut === -1) {
          carry = undefined;
          continue;
        }
        end = cut;
        cut = end === 0 ? -1 : block.lastIndexOf(NEWLINE, end - 1);
        atEnd = false;
      }
      while (cut !== -1) {
        if (end > cut + 1) yield block.subarray(cut + 1, end);
        end = cut;
        cut = end === 0 ? -1 : block.lastIndexOf(NEWLINE, end - 1);
      }
      carry = block.subarray(0, end);
    }
    if (!atEnd && carry && carry.length > 0) yield carry;
  } finally {
    await handle.close();
  }
}

/** What readLinesForward reads from: a FileHandle, or a file read another way (call-index-reader.ts reads without the thread pool). */
export interface PositionalReader {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * The complete lines of an open segment between two offsets, first to last,
 * each with the offset it starts at; a last fragment without its newline
 * (torn, or being written) is left out.
 */
export async function* readLinesForward(handle: PositionalReader, from: number, to: number, chunkBytes = 1024 * 1024): AsyncGenerator<{ line: Buffer; offset: number }> {
  let position = from;
  let carry: Buffer | undefined;
  while (position < to) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, to - position));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) return;
    const block = carry ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    const blockStart = position - (carry?.length ?? 0);
    position += bytesRead;
    let start = 0;
    for (let at = block.indexOf(NEWLINE); at !== -1; at = block.indexOf(NEWLINE, start)) {
      if (at > start) yield { line: block.subarray(start, at), offset: blockStart + start };
      start = at + 1;
    }
    carry = start < block.length ? block.subarray(start) : undefined;
  }
}
