import { isCallRecord, isRepeatLine } from '../median/record-shape.js';
import type { CallRecord, RepeatLine } from '../median/call-record.js';
import { escapeJsonControls } from '../shared/output-sanitiser.js';
import { REPEAT_LINE_START } from './segment-files.js';

/**
 * The call index: one small file beside each segment (`calls-000001.idx`
 * beside `calls-000001.jsonl`) naming every line of it, so a lookup by
 * toolCallId or record id reads a few hundred kilobytes of index instead of
 * every segment. It is a cache; the segments are the truth:
 *
 * - the writer appends a segment's entries right after the segment's own
 *   durable write (not synced itself), so an index only ever lags its
 *   segment: a reader reads the lines past the index's last entry from the
 *   segment itself, and the writer rebuilds a lagging or broken index when it
 *   opens the data dir;
 * - the first line names the segment's inode: an index left from a segment
 *   that was deleted and made again under the same name is not used;
 * - every record found through it is read from its segment and checked
 *   against its entry; a mismatch drops the index for a full scan.
 *
 * A line is a JSON array: `["c", offset, length, id, toolCallId, replayOf]`
 * for a record, `["r", offset, length, repeatOf]` for a repeat line,
 * `["x", offset, length]` for a line that is neither (so it stays covered); the
 * strings are escaped as in the segments, so a lookup can look for an id's
 * JSON text in the raw file before parsing any line.
 */
export const INDEX_MAGIC = 'median-dev call index';
export const INDEX_VERSION = 1;
const SEGMENT_SUFFIX = '.jsonl';

export interface IndexedCall {
  kind: 'call';
  offset: number;
  length: number;
  id: string;
  toolCallId: string;
  replayOf: string | null;
}

export interface IndexedRepeat {
  kind: 'repeat';
  offset: number;
  length: number;
  repeatOf: string;
}

/** A line that is neither (written by hand or by something else), named so the index still covers it. */
export interface IndexedOther {
  kind: 'other';
  offset: number;
  length: number;
}

export type IndexEntry = IndexedCall | IndexedRepeat | IndexedOther;

/** What the writer knows of a line before it is written: its entry without the place. */
export type IndexKey = Omit<IndexedCall, 'offset' | 'length'> | Omit<IndexedRepeat, 'offset' | 'length'> | Omit<IndexedOther, 'offset' | 'length'>;

/** `calls-000001.jsonl` → `calls-000001.idx` (never a name the segment pattern takes). */
export function indexPathOf(segmentPath: string): string {
  const stem = segmentPath.endsWith(SEGMENT_SUFFIX) ? segmentPath.slice(0, -SEGMENT_SUFFIX.length) : segmentPath;
  return `${stem}.idx`;
}

function jsonLine(value: unknown): string {
  return `${escapeJsonControls(JSON.stringify(value))}\n`;
}

export function indexHeader(inode: bigint): Buffer {
  return Buffer.from(jsonLine([INDEX_MAGIC, INDEX_VERSION, inode.toString()]), 'utf8');
}

/** The inode an index header names, or undefined when the line is not a header of this version. */
export function parseIndexHeader(line: Buffer): string | undefined {
  try {
    const value = JSON.parse(line.toString('utf8')) as unknown;
    if (!Array.isArray(value) || value[0] !== INDEX_MAGIC || value[1] !== INDEX_VERSION || typeof value[2] !== 'string') return undefined;
    return value[2];
  } catch {
    return undefined; // not a header: the index is not used
  }
}

export function indexKeyOf(record: CallRecord): IndexKey {
  return { kind: 'call', id: record.id, toolCallId: record.toolCallId, replayOf: record.replayOf };
}

export function indexLine(key: IndexKey, offset: number, length: number): string {
  if (key.kind === 'call') return jsonLine(['c', offset, length, key.id, key.toolCallId, key.replayOf]);
  return key.kind === 'repeat' ? jsonLine(['r', offset, length, key.repeatOf]) : jsonLine(['x', offset, length]);
}

const isPlace = (offset: unknown, length: unknown): boolean =>
  Number.isSafeInteger(offset) && Number.isSafeInteger(length) && (offset as number) >= 0 && (length as number) > 0;

/** One index line; undefined when it is not one (a corrupt index). */
export function parseIndexLine(line: Buffer): IndexEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined; // corrupt: the caller stops trusting this index
  }
  if (!Array.isArray(value) || !isPlace(value[1], value[2])) return undefined;
  const [kind, offset, length, id, toolCallId, replayOf] = value as [unknown, number, number, unknown, unknown, unknown];
  if (kind === 'x' && value.length === 3) return { kind: 'other', offset, length };
  if (typeof id !== 'string') return undefined;
  if (kind === 'r' && value.length === 4) return { kind: 'repeat', offset, length, repeatOf: id };
  if (kind !== 'c' || value.length !== 6 || typeof toolCallId !== 'string' || (replayOf !== null && typeof replayOf !== 'string')) return undefined;
  return { kind: 'call', offset, length, id, toolCallId, replayOf };
}

export type ParsedLine = { kind: 'call'; record: CallRecord } | { kind: 'repeat'; repeat: RepeatLine };

function parseJson(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined; // not JSON: skipped as the store skips it
  }
}

/** A segment line (without its newline) as a record or a repeat line; undefined for a line that is neither. */
export function parseSegmentLine(line: Buffer): ParsedLine | undefined {
  const isRepeat = line.subarray(0, REPEAT_LINE_START.length).equals(REPEAT_LINE_START);
  if (!isRepeat) {
    const record = parseRecordLine(line);
    return record ? { kind: 'call', record } : undefined;
  }
  const value = parseJson(line);
  return isRepeatLine(value) ? { kind: 'repeat', repeat: value } : undefined;
}

/** A segment line known not to be a repeat line, as a record; undefined when it is not one. */
export function parseRecordLine(line: Buffer): CallRecord | undefined {
  const value = parseJson(line);
  return isCallRecord(value) ? value : undefined;
}

export function keyOfParsed(parsed: ParsedLine | undefined): IndexKey {
  if (!parsed) return { kind: 'other' };
  return parsed.kind === 'call' ? indexKeyOf(parsed.record) : { kind: 'repeat', repeatOf: parsed.repeat.repeatOf };
}

/** Whether a line read from a segment is the one an entry names. */
export function isLineOfEntry(parsed: ParsedLine | undefined, entry: IndexEntry): boolean {
  if (!parsed || parsed.kind !== entry.kind) return false;
  if (parsed.kind === 'repeat') return entry.kind === 'repeat' && parsed.repeat.repeatOf === entry.repeatOf;
  const { record } = parsed;
  return entry.kind === 'call' && record.id === entry.id && record.toolCallId === entry.toolCallId && record.replayOf === entry.replayOf;
}
