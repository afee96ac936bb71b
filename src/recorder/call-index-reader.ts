import { closeSync } from 'node:fs';
import { isLineOfEntry, keyOfParsed, parseSegmentLine, type IndexEntry, type ParsedLine } from './call-index-file.js';
import { findInIndex, openView, readAt, type IndexScratch, type SegmentView } from './index-views.js';
import { REPEAT_LINE_START, readLinesForward, type SegmentFile } from './segment-files.js';

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

/**
 * For a hit of a search (`isFollowed`: of a needle followed, not the one asked
 * for), a needle to look for in the same read, from the hit's segment on;
 * undefined: none.
 */
export type FollowNeedle = (hit: IndexHit, isFollowed: boolean) => Buffer | undefined;

/**
 * What a search's caller uses of its hits. `text` (the default): every line
 * holding the needle's text, as a prefix's matches need. `whole`: only the
 * lines naming it as a whole id (a record's id, toolCallId or replayOf, a
 * repeat line's repeatOf equal to it); the hits may hold others too, but a
 * segment whose ids filter (ids-filter.ts) says it names no such id is not
 * read.
 */
export type SearchScope = 'text' | 'whole';

export interface IndexedLookup {
  /**
   * The lines holding `needle` (a string's JSON text), newest first. With
   * `follow`, each hit may name a second needle (a record's id, for its
   * replays and repeat lines), searched in the same read of the indexes
   * from the hit's segment on, and kept as that needle's answer: a record's
   * id first appears in its own line, and every line naming it (a replay, a
   * repeat line) is written after it, so no earlier segment holds one.
   * `scope`: see SearchScope; a needle followed is searched in the same one.
   */
  find(needle: Buffer, follow?: FollowNeedle, scope?: SearchScope): Promise<IndexHit[]>;
  /** The line of a hit, read from its segment and checked against its entry (else `IndexMismatchError`). */
  load(hit: IndexHit): Promise<ParsedLine>;
  /** Segment lines the lookup had to read itself (past or without an index): 0 when every index was whole. */
  linesRead(): number;
  /** Bytes of index its searches read (each index once per search, however many needles it followed). */
  indexBytesRead(): number;
  close(): Promise<void>;
}

/** How many needles a search follows at most (each is searched in every later chunk of index it reads). */
const MAX_FOLLOWED = 4;
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
 * of index: a search of the text of an id (a prefix) in 100,000 records
 * reads about 9 MB of index from the page cache (a whole id, with the ids
 * filters, one or two segments' worth), and each asynchronous open or read was a hop to
 * a libuv thread and back (most of a `show`'s lookup time on 2 busy cores); a
 * search holds the loop about a millisecond at a time. A needle asked for
 * again is answered from the first search, and so is one a search followed
 * (`show <toolCallId>`: the call's id, for its replays, found in the same read
 * as the call; reading the indexes twice was ~5 ms of its ~20).
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
  const scratch: IndexScratch = { buffer: Buffer.allocUnsafe(INDEX_CHUNK_BYTES), bytesRead: 0 };
  const found = new Map<string, Promise<IndexHit[]>>();

  /**
   * The lines of one segment holding each of `needles` (one list per needle,
   * newest first), in one read of its index; none, and nothing read, when
   * the search is for whole ids its filter says the segment does not name.
   */
  async function findInSegment(view: SegmentView, needles: readonly Buffer[], scope: SearchScope): Promise<IndexHit[][]> {
    if (scope === 'whole' && view.filter && !needles.some((needle) => view.filter!.mayHold(needle))) return needles.map(() => []);
    const searchesOthers = view.others === undefined;
    let matched = findInIndex(view, searchesOthers ? [...needles, OTHER_LINE_START] : needles, scratch);
    if (!matched) {
      // A corrupt line: this index names nothing from now on, the segment is read through.
      closeSync(view.index!.file.fd);
      view.index = undefined;
      view.covered = 0;
      matched = [];
    }
    if (searchesOthers) view.others = matched.filter(({ entry }) => entry.kind === 'other').map(({ entry }) => entry);
    const hits: IndexHit[][] = needles.map((_, i) => matched.filter(({ entry, mask }) => entry.kind !== 'other' && (mask & (1 << i)) !== 0).map(({ entry }) => ({ entry, view })));
    // Lines that are neither a record nor a repeat are skipped and counted as a scan would, when they hold a needle.
    for (const entry of view.index ? view.others! : []) {
      const line = Buffer.allocUnsafe(entry.length);
      if (readAt(view.segment.fd, line, 0, entry.length, entry.offset) === entry.length && needles.some((needle) => line.includes(needle))) onSkipped(line);
    }
    for await (const { line, offset } of readLinesForward(view.segment, view.covered, view.size)) {
      read += 1;
      const isRepeat = line.subarray(0, REPEAT_LINE_START.length).equals(REPEAT_LINE_START);
      // Repeat lines name only their record's id: each is kept, for the caller to match.
      const holds = needles.map((needle) => isRepeat || line.includes(needle));
      if (!holds.includes(true)) continue;
      const parsed = parseSegmentLine(line);
      if (!parsed) {
        if (!isRepeat) onSkipped(line);
        continue;
      }
      const hit: IndexHit = { entry: { ...keyOfParsed(parsed), offset, length: line.length }, parsed, view };
      holds.forEach((holdsIt, i) => holdsIt && hits[i]!.push(hit));
    }
    return hits.map((each) => each.reverse());
  }

  /** A search's needle and its hits, one list per segment searched, oldest segment first. */
  interface Search {
    needle: Buffer;
    perSegment: IndexHit[][];
  }

  /** `needle`'s lines in every segment, and those of the needles `follow` names, all in one read of each index. */
  async function findAll(needle: Buffer, follow: FollowNeedle | undefined, scope: SearchScope): Promise<IndexHit[]> {
    const searches: Search[] = [{ needle, perSegment: [] }];
    let searched = 0;
    for (const view of views) {
      if (searched >= YIELD_AFTER_BYTES) {
        await nextTurn();
        searched = 0;
      }
      const readBefore = scratch.bytesRead + read;
      let fresh = searches.slice();
      while (fresh.length > 0) {
        const perNeedle = await findInSegment(view, fresh.map((search) => search.needle), scope);
        fresh.forEach((search, i) => search.perSegment.push(perNeedle[i]!));
        // Lines naming what a hit names come after the hit: a needle followed is searched from this segment on.
        fresh = follow ? followedFrom(fresh.flatMap((search, i) => perNeedle[i]!.map((hit) => ({ hit, isFollowed: search !== searches[0] }))), searches, follow, scope) : [];
        searches.push(...fresh);
      }
      if (scratch.bytesRead + read !== readBefore) searched += view.index ? view.index.bodyEnd - view.index.bodyStart : view.size - view.covered;
    }
    for (const search of searches.slice(1)) found.set(keyOf(search.needle, scope), Promise.resolve(search.perSegment.reverse().flat()));
    return searches[0]!.perSegment.reverse().flat();
  }

  /** A search's answers by needle and scope; a `text` search's answer serves a `whole` one too (it read every segment). */
  const keyOf = (needle: Buffer, scope: SearchScope): string => `${scope}:${needle.toString('latin1')}`;
  const known = (needle: Buffer, scope: SearchScope): Promise<IndexHit[]> | undefined =>
    found.get(keyOf(needle, 'text')) ?? (scope === 'whole' ? found.get(keyOf(needle, 'whole')) : undefined);

  /** The new searches `follow` names for `hits` (at most MAX_FOLLOWED in all, none already searched or known). */
  function followedFrom(hits: ReadonlyArray<{ hit: IndexHit; isFollowed: boolean }>, searches: readonly Search[], follow: FollowNeedle, scope: SearchScope): Search[] {
    const added: Search[] = [];
    for (const { hit, isFollowed } of hits) {
      const next = follow(hit, isFollowed);
      if (!next || searches.length + added.length > MAX_FOLLOWED) continue;
      if (known(next, scope) || [...searches, ...added].some((search) => search.needle.equals(next))) continue;
      added.push({ needle: next, perSegment: [] });
    }
    return added;
  }

  return {
    find(needle, follow, scope = 'text') {
      let hits = known(needle, scope);
      if (!hits) found.set(keyOf(needle, scope), (hits = findAll(needle, follow, scope)));
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
    indexBytesRead: () => scratch.bytesRead,
    close,
  };
}
