import { stat } from 'node:fs/promises';
import { withRepeats, type CallRecord, type RepeatLine } from '../median/call-record.js';
import type { VerdictKind } from '../median/verdict-types.js';
import { UserError, errorCode } from '../shared/errors.js';
import { nodeCrypto } from '../shared/lazy-builtins.js';
import { jsonNeedle, matchesText } from './record-text.js';
import { parseRecordLine, parseSegmentLine } from './call-index-file.js';
import { IndexMismatchError, openIndexedLookup, type IndexedLookup } from './call-index-reader.js';
import { createCallPicker } from './call-picker.js';
import { findIndexed, getIndexed, replaysIndexed, type Found } from './indexed-queries.js';
import { notFound, pickedOf } from './picked-call.js';
import { createReceivedOrder, timesOf, type LineVerdict } from './received-order.js';
import { REPEAT_LINE_START, callsDirOf, listSegments, readLinesBackward, scanSegment } from './segment-files.js';

export interface CallQuery {
  tool?: string;
  verdict?: VerdictKind;
  /** At most this many records (default: all). */
  limit?: number;
  /**
   * Case-insensitive text looked for in the ids, tool, conversation, request
   * and response bodies, the agent's text and the error message.
   */
  text?: string;
  /** Only records this lets through (a parsed filter, a time window). */
  where?: (record: CallRecord) => boolean;
  /**
   * `recorded` (default): in the order they were written, which is when each
   * call finished. `received`: newest `receivedAt` first, the order the calls
   * came in (a slow call written last is listed where it arrived).
   */
  order?: 'recorded' | 'received';
}

/**
 * The read side of the call store. It takes no lock and works from any
 * process while the daemon writes: it sees every record whose line is
 * complete and skips a line still being written or torn by a crash.
 */
export type { CallCandidate } from './picked-call.js';

export interface CallStore {
  /** Records, most recently recorded first (or received first: `order`). */
  list(query?: CallQuery): Promise<CallRecord[]>;
  /**
   * One record by toolCallId or record id, exactly or by a unique prefix.
   * A toolCallId means the call the agent made: of the records that carry it
   * (same-id replays keep it) it gives the original — the first that is not a
   * replay, else the first. A replay is reached by its record id.
   * Unknown → `call_not_found`; a prefix of several calls → `call_ambiguous`
   * with `details.candidates`.
   */
  findByToolCallId(idOrPrefix: string): Promise<CallRecord>;
  /**
   * `findByToolCallId`, then `replaysOf` the record found, through one read
   * of the call index (what `show` needs; a record with more than 4 replays,
   * or calls under its toolCallId, takes a read more for each of the rest):
   * the same answers and errors as the two calls.
   */
  findWithReplays(idOrPrefix: string): Promise<{ record: CallRecord; replays: CallRecord[] }>;
  get(recordId: string): Promise<CallRecord | undefined>;
  /** The replays of a record (`replayOf` is its id), oldest first. */
  replaysOf(recordId: string): Promise<CallRecord[]>;
  /** The newest manifest read the route answered with 200, if any. */
  latestManifestRead(): Promise<CallRecord | undefined>;
  /** Complete records in the store. */
  count(): Promise<number>;
  /**
   * Lines this store skipped so far because they are not a call record
   * (not JSON, or fields of the wrong type: see `isCallRecord` in src/median/record-shape.ts). Each
   * distinct line is counted once, however often it is read.
   */
  skippedLines(): number;
  /** Every complete record, newest first, read as it is iterated (the whole store never sits in memory). */
  scan(): AsyncIterable<CallRecord>;
  /**
   * Segment lines the last lookup by id (`findByToolCallId`, `get`,
   * `replaysOf`) read itself, because no call index named them (a live
   * segment's newest lines, a segment without a usable index), or every line
   * it read when an index did not match and it scanned instead: 0 when the
   * indexes were whole. For tests and diagnostics.
   */
  lastLookupLinesRead(): number;
  /** Bytes of call index the last lookup by id read (0 after a full scan). */
  lastLookupIndexBytesRead(): number;
}

const MAX_CANDIDATES = 20;

export function createCallStore(dataDir: string): CallStore {
  const callsDir = callsDirOf(dataDir);
  // Closed segments never change, so their line counts are kept by size.
  const counted = new Map<string, { size: number; lines: number }>();
  /** Lines skipped as not a record, by a hash of their content (a line read twice counts once). */
  const skipped = new Set<string>();
  const noteSkipped = (line: Buffer): void => void skipped.add(nodeCrypto().createHash('sha1').update(line).digest('hex'));
  /** Lines the full scans read, for `lastLookupLinesRead`. */
  let linesScanned = 0;

  /** The segments; a calls folder that cannot be read (a file in its place, …) is the user's to fix. */
  async function segments(): Promise<Awaited<ReturnType<typeof listSegments>>> {
    try {
      return await listSegments(callsDir);
    } catch (error) {
      throw new UserError('store_unreadable', `Cannot read the recorded calls in ${callsDir} (${errorCode(error) ?? String(error)}).`, {
        hint: `${callsDir} has to be a folder median-dev can read; move whatever is there away, or pass another --data-dir.`,
        cause: error,
      });
    }
  }

  /** Every complete line, newest first, segment by segment from the newest. */
  async function* linesNewestFirst(): AsyncGenerator<Buffer> {
    const found = await segments();
    for (let i = found.length - 1; i >= 0; i -= 1) {
      yield* readLinesBackward(found[i]!.path);
    }
  }

  async function* recordsNewestFirst(mustContain: Buffer[] = [], judge?: (line: Buffer) => LineVerdict): AsyncGenerator<CallRecord> {
    // Repeat lines come after their record: read newest first, the first one seen is the newest.
    const repeats = new Map<string, RepeatLine>();
    for await (const line of linesNewestFirst()) {
      linesScanned += 1;
      if (line.subarray(0, REPEAT_LINE_START.length).equals(REPEAT_LINE_START)) {
        // A torn repeat line (not one) is passed over: that count is lost, the record stays.
        const parsed = parseSegmentLine(line);
        const repeat = parsed?.kind === 'repeat' ? parsed.repeat : undefined;
        if (repeat && !repeats.has(repeat.repeatOf)) repeats.set(repeat.repeatOf, repeat);
        continue;
      }
      if (!mustContain.every((needle) => line.includes(needle))) continue;
      const judged = judge?.(line);
      if (judged === 'past') return;
      if (judged === 'skip') continue;
      // A line that is not a record (there should be none: torn ones are skipped earlier) is left out, and counted.
      const record = parseRecordLine(line);
      if (!record) {
        noteSkipped(line);
        continue;
      }
      const repeat = repeats.get(record.id);
      yield repeat ? withRepeats(record, repeat) : record;
    }
  }
  let lookupLinesRead = 0;
  let lookupIndexBytesRead = 0;

  /** A lookup through the call index; the full scan when an index does not match its segment (the segments are the truth). */
  async function throughIndex<T>(indexed: (lookup: IndexedLookup) => Promise<T>, scanned: () => Promise<T>): Promise<T> {
    const lookup = await openIndexedLookup(await segments(), noteSkipped);
    try {
      const result = await indexed(lookup);
      lookupLinesRead = lookup.linesRead();
      lookupIndexBytesRead = lookup.indexBytesRead();
      return result;
    } catch (error) {
      if (!(error instanceof IndexMismatchError)) throw error;
    } finally {
      await lookup.close();
    }
    linesScanned = 0;
    const result = await scanned();
    lookupLinesRead = linesScanned;
    lookupIndexBytesRead = 0;
    return result;
  }

  /** `findByToolCallId` by reading every segment, newest first. */
  async function findByScan(wanted: string): Promise<Found> {
    const picker = createCallPicker<CallRecord>(wanted);
    for await (const record of recordsNewestFirst([jsonNeedle(wanted)])) {
      if (picker.offer(record)) break;
    }
    const picked = picker.result();
    return 'only' in picked ? { record: picked.only } : { candidates: picked.distinct.slice(0, MAX_CANDIDATES), total: picked.distinct.length };
  }

  /** `replaysOf` by reading every segment, newest first. */
  async function replaysByScan(recordId: string): Promise<CallRecord[]> {
    const replays: CallRecord[] = [];
    for await (const record of recordsNewestFirst([jsonNeedle(recordId)])) {
      if (record.replayOf === recordId) replays.push(record);
    }
    return replays.reverse();
  }

  return {
    skippedLines: () => skipped.size,
    lastLookupLinesRead: () => lookupLinesRead,
    lastLookupIndexBytesRead: () => lookupIndexBytesRead,
    scan: () => recordsNewestFirst(),

    async list(query = {}) {
      const limit = query.limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(query.limit));
      const result: CallRecord[] = [];
      if (limit === 0) return result;
      const needles: Buffer[] = [];
      if (query.tool !== undefined) needles.push(jsonNeedle(query.tool));
      if (query.verdict !== undefined) needles.push(jsonNeedle(query.verdict));
      const text = query.text?.toLowerCase();
      const byReceived = query.order === 'received' ? createReceivedOrder(limit) : undefined;
      for await (const record of recordsNewestFirst(needles, byReceived?.judgeLine)) {
        if (byReceived?.isPastLimit(timesOf(record))) break;
        if (query.tool !== undefined && record.tool !== query.tool) continue;
        if (query.verdict !== undefined && record.verdict?.kind !== query.verdict) continue;
        if (text && !matchesText(record, text)) continue;
        if (query.where && !query.where(record)) continue;
        if (byReceived) {
          byReceived.add(record);
          continue;
        }
        result.push(record);
        if (result.length >= limit) break;
      }
      return byReceived ? byReceived.records() : result;
    },

    async findByToolCallId(idOrPrefix) {
      const wanted = idOrPrefix.trim();
      if (wanted === '') throw notFound(idOrPrefix);
      return pickedOf(
        wanted,
        await throughIndex(
          (lookup) => findIndexed(lookup, jsonNeedle, wanted, MAX_CANDIDATES),
          () => findByScan(wanted),
        ),
      );
    },

    async findWithReplays(idOrPrefix) {
      const wanted = idOrPrefix.trim();
      if (wanted === '') throw notFound(idOrPrefix);
      return throughIndex(
        async (lookup) => {
          const record = pickedOf(wanted, await findIndexed(lookup, jsonNeedle, wanted, MAX_CANDIDATES, true));
          return { record, replays: await replaysIndexed(lookup, jsonNeedle, record.id) };
        },
        async () => {
          const record = pickedOf(wanted, await findByScan(wanted));
          return { record, replays: await replaysByScan(record.id) };
        },
      );
    },

    replaysOf(recordId) {
      return throughIndex(
        (lookup) => replaysIndexed(lookup, jsonNeedle, recordId),
        () => replaysByScan(recordId),
      );
    },

    async latestManifestRead() {
      for await (const record of recordsNewestFirst([jsonNeedle('manifest')])) {
        if (record.kind === 'manifest' && record.response?.status === 200) return record;
      }
      return undefined;
    },

    get(recordId) {
      return throughIndex(
        (lookup) => getIndexed(lookup, jsonNeedle, recordId),
        async () => {
          for await (const record of recordsNewestFirst([jsonNeedle(recordId)])) {
            if (record.id === recordId) return record;
          }
          return undefined;
        },
      );
    },

    async count() {
      let total = 0;
      for (const segment of await segments()) {
        try {
          const { size } = await stat(segment.path);
          const known = counted.get(segment.path);
          if (known && known.size === size) {
            total += known.lines;
            continue;
          }
          const scan = await scanSegment(segment.path);
          // Records only: a repeat line counts a record made again, not a new one.
          counted.set(segment.path, { size: scan.bytes, lines: scan.lines - scan.repeatLines });
          total += scan.lines - scan.repeatLines;
        } catch (error) {
          if (!['ENOENT', 'ENOTREGULAR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
          // Deleted by retention since the listing (its records are gone), or a link put in its place (never read).
        }
      }
      return total;
    },
  };
}
