import type { CallRecord } from '../median/index.js';
import type { CallEvent } from '../events/index.js';

/** The newest records a client that attaches starts from. */
export const SNAPSHOT_RECORDS = 500;

/** The store's side: its newest records, most recently recorded first. */
export interface NewestRecords {
  read(limit: number): Promise<CallRecord[]>;
  /** The id of the newest record stored when the daemon started (undefined: none). */
  newestAtStart: string | undefined;
}

/**
 * The records a client that attaches (`watch` and the control channel, the
 * TUI on start) starts from: the newest SNAPSHOT_RECORDS, in the order they
 * were announced.
 *
 * With a store they are read from it when the client attaches, not kept: a
 * record kept in a list of 500 lives two seconds at 250 calls/s, long enough
 * to be promoted out of V8's young generation, and the daemon's old
 * generation then grew by ~1.5 KB a call and filled V8's 8 MB step within
 * seconds (BENCHMARKS.md, "Soak"). What is kept instead is what the store
 * cannot say: the id of the newest record announced (stored records whose
 * `call` event has not gone out yet are left to their event, so a client sees
 * none twice), the first record announced after a `clear` (the line it drew),
 * and the records the store could not take (a failing disk; bounded).
 *
 * Without a store the newest records are kept in memory, as a list.
 */
export interface SnapshotRecords {
  /** A `call` event went out (a repeat replaces its record where it stands). */
  take(event: CallEvent): void;
  /** A record the store could not take, announced from memory: kept for clients that attach later. */
  keepUnstored(record: CallRecord): void;
  clear(): void;
  /** The records held in memory, oldest first (without a store: all; with one: those it could not take). */
  kept(): CallRecord[];
  /** The newest records as of this call, oldest first, the caller's own (read from the store when there is one, the rest copied). */
  read(): Promise<CallRecord[]>;
}

/** Puts `record` in the list: in place of a record with its id, else at the end; the oldest go beyond `max`. */
function upsert(list: CallRecord[], record: CallRecord, max: number): void {
  const at = list.findIndex((r) => r.id === record.id);
  if (at >= 0) {
    list[at] = record;
    return;
  }
  list.push(record);
  if (list.length > max) list.splice(0, list.length - max);
}

/** Two lists in the order calls arrived (each already in its own order), the newest `max`. */
function mergeByReceived(stored: CallRecord[], unstored: CallRecord[], max: number): CallRecord[] {
  const ids = new Set(stored.map((r) => r.id));
  const rest = structuredClone(unstored.filter((r) => !ids.has(r.id)));
  if (rest.length === 0) return stored.slice(-max);
  const merged: CallRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < stored.length || j < rest.length) {
    const takeStored = j >= rest.length || (i < stored.length && stored[i]!.receivedAt <= rest[j]!.receivedAt);
    merged.push(takeStored ? stored[i++]! : rest[j++]!);
  }
  return merged.slice(-max);
}

export function createSnapshotRecords(options: { store?: NewestRecords; initial?: readonly CallRecord[]; max?: number }): SnapshotRecords {
  const max = options.max ?? SNAPSHOT_RECORDS;
  const store = options.store;
  /** Without a store: the newest records. With one: those it could not take. */
  let kept: CallRecord[] = store ? [] : options.initial?.slice(-max) ?? [];
  /** The newest announced record that the store has. */
  let announced = store?.newestAtStart;
  /** Set by `clear`: the first stored record announced after it (undefined: none yet). */
  let afterClear: { first: string | undefined } | undefined;

  /** The store's newest records as of the marks given, oldest first. */
  async function readStored(source: NewestRecords, marks: { announced: string | undefined; afterClear: { first: string | undefined } | undefined }): Promise<CallRecord[]> {
    if (marks.afterClear && marks.afterClear.first === undefined) return [];
    let newestFirst = await source.read(max);
    // Stored, but their events have not gone out yet: they come as events.
    const at = marks.announced === undefined ? -1 : newestFirst.findIndex((r) => r.id === marks.announced);
    if (marks.announced === undefined) newestFirst = [];
    else if (at > 0) newestFirst = newestFirst.slice(at);
    // A clear: nothing from before the first record after it (not found among these: all are after it).
    const first = marks.afterClear?.first;
    const end = first === undefined ? -1 : newestFirst.findIndex((r) => r.id === first);
    if (end >= 0) newestFirst = newestFirst.slice(0, end + 1);
    return newestFirst.reverse();
  }

  return {
    take(event) {
      const record = event.record;
      if (!store) {
        if (record) upsert(kept, record, max);
        return;
      }
      const isUnstored = kept.some((r) => r.id === event.id);
      if (isUnstored && record) upsert(kept, record, max);
      if (isUnstored || event.repeats !== undefined) return;
      announced = event.id;
      if (afterClear && afterClear.first === undefined) afterClear.first = event.id;
    },
    keepUnstored(record) {
      if (store) upsert(kept, record, max);
    },
    clear() {
      kept = [];
      if (store) afterClear = { first: undefined };
    },
    kept: () => kept.slice(),
    async read() {
      const unstored = kept.slice();
      if (!store) return structuredClone(unstored);
      const marks = { announced, afterClear: afterClear && { ...afterClear } };
      // A store that cannot be read (its folder gone, …): the client starts from what is in memory, the events go on.
      const stored = await readStored(store, marks).catch(() => [] as CallRecord[]);
      return mergeByReceived(stored, unstored, max);
    },
  };
}
