import type { CallRecord } from '../median/call-record.js';

/**
 * An immutable list that appends in O(1): each value is a view
 * (`store`, `length`) over an array that views share. Appending to the newest
 * view pushes onto the shared array; appending to an older view (a branch)
 * copies first, so no view ever sees a change. This keeps the reducer pure
 * while 100,000 records stream in.
 */
export class AppendOnlyList<T> {
  private constructor(
    private readonly store: T[],
    readonly length: number,
  ) {}

  static empty<T>(): AppendOnlyList<T> {
    return new AppendOnlyList<T>([], 0);
  }

  static from<T>(items: readonly T[]): AppendOnlyList<T> {
    return new AppendOnlyList<T>(items.slice(), items.length);
  }

  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.store[index] : undefined;
  }

  push(item: T): AppendOnlyList<T> {
    const store = this.store.length === this.length ? this.store : this.store.slice(0, this.length);
    store.push(item);
    return new AppendOnlyList(store, this.length + 1);
  }

  /** Whether `push` would copy (this view is not the newest of its store). */
  get isBranch(): boolean {
    return this.store.length !== this.length;
  }
}

const MAX_PATCHES = 256;

/**
 * All known records, oldest first, with an id index. The index map is shared
 * between views like the list; a lookup is checked against the view (index
 * inside its length, same id there), so later appends stay invisible. A
 * record that arrives again (same id) is kept as a patch of this view, so an
 * update costs O(updates), not O(records).
 */
export class RecordList {
  private constructor(
    private readonly items: AppendOnlyList<CallRecord>,
    private readonly ids: Map<string, number>,
    private readonly patches: ReadonlyMap<number, CallRecord>,
  ) {}

  static empty(): RecordList {
    return new RecordList(AppendOnlyList.empty(), new Map(), new Map());
  }

  static from(records: readonly CallRecord[]): RecordList {
    let list = RecordList.empty();
    for (const record of records) list = list.upsert(record);
    return list;
  }

  get length(): number {
    return this.items.length;
  }

  at(index: number): CallRecord | undefined {
    return this.patches.get(index) ?? this.items.at(index);
  }

  indexOf(id: string): number | undefined {
    const index = this.ids.get(id);
    // Patches keep the id, so the stored record's id is the one to compare.
    if (index === undefined || this.items.at(index)?.id !== id) return undefined;
    return index;
  }

  /** Appends a new record, or replaces the one with the same id. */
  upsert(record: CallRecord): RecordList {
    const existing = this.indexOf(record.id);
    if (existing !== undefined) {
      const patches = new Map(this.patches).set(existing, record);
      return patches.size < MAX_PATCHES ? new RecordList(this.items, this.ids, patches) : this.compacted(patches);
    }
    const ids = this.items.isBranch ? this.rebuildIds() : this.ids;
    ids.set(record.id, this.items.length);
    return new RecordList(this.items.push(record), ids, this.patches);
  }

  /** Folds many patches into a fresh store (O(n), once every MAX_PATCHES updates). */
  private compacted(patches: ReadonlyMap<number, CallRecord>): RecordList {
    const records: CallRecord[] = [];
    const ids = new Map<string, number>();
    for (let i = 0; i < this.items.length; i++) {
      const record = patches.get(i) ?? (this.items.at(i) as CallRecord);
      records.push(record);
      ids.set(record.id, i);
    }
    return new RecordList(AppendOnlyList.from(records), ids, new Map());
  }

  private rebuildIds(): Map<string, number> {
    const ids = new Map<string, number>();
    for (let i = 0; i < this.items.length; i++) ids.set((this.items.at(i) as CallRecord).id, i);
    return ids;
  }
}
