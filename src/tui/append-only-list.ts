/**
 * An immutable list that appends in O(1) and drops its oldest items: each
 * value is a view (`start`, `length`) over an array that views share.
 * Positions are absolute and never shift: the first item ever pushed is at 0,
 * and positions below `start` have been dropped (`at` answers undefined).
 * Appending to the newest view pushes onto the shared array; appending to an
 * older view (a branch) copies first, so no view ever sees a change. Dropped
 * items stay in the shared array until enough have gone, then the kept ones
 * are copied to a new array (O(kept), once per kept/4 drops), so the list
 * holds at most ~5/4 of what it keeps. This keeps the reducer pure while
 * 100,000 records stream in.
 */
export class AppendOnlyList<T> {
  private constructor(
    private readonly store: T[],
    /** The position of `store[0]`. */
    private readonly base: number,
    /** The oldest kept position. */
    readonly start: number,
    /** One past the newest position (every item ever pushed, dropped or not). */
    readonly length: number,
  ) {}

  static empty<T>(): AppendOnlyList<T> {
    return new AppendOnlyList<T>([], 0, 0, 0);
  }

  /** `items` at positions `start`, `start + 1`, … */
  static from<T>(items: readonly T[], start = 0): AppendOnlyList<T> {
    return new AppendOnlyList<T>(items.slice(), start, start, start + items.length);
  }

  /** Items kept (not dropped). */
  get size(): number {
    return this.length - this.start;
  }

  /** Items the shared array still references: the kept ones and dropped ones not yet released. */
  get held(): number {
    return this.store.length;
  }

  at(position: number): T | undefined {
    return position >= this.start && position < this.length ? this.store[position - this.base] : undefined;
  }

  push(item: T): AppendOnlyList<T> {
    const end = this.length - this.base;
    const store = this.store.length === end ? this.store : this.store.slice(0, end);
    store.push(item);
    return new AppendOnlyList(store, this.base, this.start, this.length + 1);
  }

  /** Drops the items before `position` (never un-drops, never past the end). */
  dropBefore(position: number): AppendOnlyList<T> {
    const start = Math.min(this.length, Math.max(this.start, position));
    if (start === this.start) return this;
    const released = start - this.base;
    if (released < 16 || released * 4 < this.length - start) return new AppendOnlyList(this.store, this.base, start, this.length);
    // A fresh array: older views keep theirs, and the dropped items are no longer referenced.
    return new AppendOnlyList(this.store.slice(released, this.length - this.base), start, start, this.length);
  }

  /** Whether `push` would copy (this view is not the newest of its store). */
  get isBranch(): boolean {
    return this.store.length !== this.length - this.base;
  }
}
