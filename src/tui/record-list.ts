import type { CallRecord } from '../median/call-record.js';
import { AppendOnlyList } from './append-only-list.js';

export { AppendOnlyList } from './append-only-list.js';

/** How many records the TUI keeps in memory: the newest ones; older calls stay in the store. */
export interface RecordWindow {
  maxRecords: number;
  /** The request and answer bodies of the kept records, in characters, at most this many (the newest record is always kept). */
  maxBodyChars: number;
}

/**
 * The TUI keeps a recent window, as ngrok's inspector and the Stripe CLI do;
 * older calls are in the store (`median-dev calls`, `show`, the inspector).
 * 2,000 records is 100 screens of a 20-row list, 4× the daemon's own snapshot
 * (500), and ~3 MB at the ~1.6 KB a typical record costs, so a TUI kept open
 * all day stays flat. A body can be 1 MiB each way (the recording limit):
 * 8 Mi characters of bodies bounds the window when calls are that big
 * (80 answers at Median's 100 KB answer limit).
 */
export const DEFAULT_RECORD_WINDOW: Readonly<RecordWindow> = Object.freeze({ maxRecords: 2_000, maxBodyChars: 8 * 1024 * 1024 });

const MAX_PATCHES = 256;

const bodyCharsOf = (record: CallRecord): number => record.request.body.length + (record.response?.body.length ?? 0);

/**
 * The newest records, oldest first, with an id index. Indices are absolute
 * and never shift: the first record ever added is 0, `length` is one past the
 * newest, and indices below `start` have dropped off the window. The index
 * map is shared between views like the list; a lookup is checked against the
 * view (index kept by it, same id there), so later appends stay invisible. A
 * record that arrives again (same id) is kept as a patch of this view, so an
 * update costs O(updates), not O(records).
 */
export class RecordList {
  private constructor(
    private readonly items: AppendOnlyList<CallRecord>,
    private readonly ids: Map<string, number>,
    private readonly patches: ReadonlyMap<number, CallRecord>,
    readonly window: Readonly<RecordWindow>,
    /** The body characters of the kept records (patches applied). */
    private readonly bodyChars: number,
  ) {}

  static empty(window: Readonly<RecordWindow> = DEFAULT_RECORD_WINDOW): RecordList {
    return new RecordList(AppendOnlyList.empty(), new Map(), new Map(), window, 0);
  }

  static from(records: readonly CallRecord[], window: Readonly<RecordWindow> = DEFAULT_RECORD_WINDOW): RecordList {
    let list = RecordList.empty(window);
    for (const record of records) list = list.upsert(record);
    return list;
  }

  /** One past the newest index: every record this list was given, kept or dropped. */
  get length(): number {
    return this.items.length;
  }

  /** The oldest kept index: the records that dropped off the window before it. */
  get start(): number {
    return this.items.start;
  }

  /** Records kept. */
  get size(): number {
    return this.items.size;
  }

  /** Records still referenced: the kept ones and dropped ones not yet released (at most ~1/4 more). */
  get held(): number {
    return this.items.held;
  }

  at(index: number): CallRecord | undefined {
    if (index < this.items.start) return undefined;
    return this.patches.get(index) ?? this.items.at(index);
  }

  indexOf(id: string): number | undefined {
    const index = this.ids.get(id);
    // Patches keep the id, so the stored record's id is the one to compare.
    if (index === undefined || this.items.at(index)?.id !== id) return undefined;
    return index;
  }

  /** Appends a new record (dropping the oldest past the window), or replaces the one with the same id. */
  upsert(record: CallRecord): RecordList {
    const existing = this.indexOf(record.id);
    if (existing !== undefined) {
      const patches = new Map(this.patches).set(existing, record);
      const bodyChars = this.bodyChars - bodyCharsOf(this.at(existing) as CallRecord) + bodyCharsOf(record);
      const patched = new RecordList(this.items, this.ids, patches, this.window, bodyChars);
      return patches.size < MAX_PATCHES ? patched.trimmed() : patched.trimmed().compacted();
    }
    const ids = this.items.isBranch ? this.rebuildIds() : this.ids;
    ids.set(record.id, this.items.length);
    return new RecordList(this.items.push(record), ids, this.patches, this.window, this.bodyChars + bodyCharsOf(record)).trimmed();
  }

  /** Drops the oldest records until the window's limits hold. */
  private trimmed(): RecordList {
    let start = this.items.start;
    let bodyChars = this.bodyChars;
    const end = this.items.length;
    while (end - start > this.window.maxRecords || (bodyChars > this.window.maxBodyChars && end - start > 1)) {
      bodyChars -= bodyCharsOf(this.at(start) as CallRecord);
      start += 1;
    }
    if (start === this.items.start) return this;
    const items = this.items.dropBefore(start);
    if (items.held === this.items.held) return new RecordList(items, this.ids, this.patches, this.window, bodyChars);
    // The store was copied without the dropped records: release their ids and patches too.
    const patches = new Map([...this.patches].filter(([index]) => index >= start));
    return new RecordList(items, this.idsOf(items), patches, this.window, bodyChars);
  }

  /** Folds many patches into a fresh store (O(kept), once every MAX_PATCHES updates). */
  private compacted(): RecordList {
    const records: CallRecord[] = [];
    for (let i = this.items.start; i < this.items.length; i++) records.push(this.at(i) as CallRecord);
    const items = AppendOnlyList.from(records, this.items.start);
    return new RecordList(items, this.idsOf(items), new Map(), this.window, this.bodyChars);
  }

  private rebuildIds(): Map<string, number> {
    return this.idsOf(this.items);
  }

  private idsOf(items: AppendOnlyList<CallRecord>): Map<string, number> {
    const ids = new Map<string, number>();
    for (let i = items.start; i < items.length; i++) ids.set((items.at(i) as CallRecord).id, i);
    return ids;
  }
}
