/**
 * The exchanges under way, as a list threaded through the exchanges
 * themselves: adding and removing allocate nothing.
 *
 * Not a Set, measured: a Set whose entries come and go once per request
 * keeps rehashing into new tables, and V8 links each obsolete table to its
 * successor. Once a dead table is promoted to the old generation, that link
 * keeps the newer tables, and through them finished requests, alive across
 * young-generation collections: whole requests got promoted to the old
 * generation (about 3 KB per request in the benchmark) and paid for in major
 * collections.
 */
export interface InFlightLinks<T> {
  inFlightPrev: T | undefined;
  inFlightNext: T | undefined;
  isInFlight: boolean;
}

export class InFlightList<T extends InFlightLinks<T>> {
  private head: T | undefined = undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(item: T): void {
    if (item.isInFlight) return;
    item.isInFlight = true;
    item.inFlightPrev = undefined;
    item.inFlightNext = this.head;
    if (this.head) this.head.inFlightPrev = item;
    this.head = item;
    this.count += 1;
  }

  delete(item: T): void {
    if (!item.isInFlight) return;
    item.isInFlight = false;
    const { inFlightPrev: prev, inFlightNext: next } = item;
    if (prev) prev.inFlightNext = next;
    else this.head = next;
    if (next) next.inFlightPrev = prev;
    item.inFlightPrev = undefined;
    item.inFlightNext = undefined;
    this.count -= 1;
  }

  /** Calls `visit` for each item; an item may remove itself (or others) meanwhile. */
  forEach(visit: (item: T) => void): void {
    let at = this.head;
    while (at) {
      const next = at.inFlightNext;
      visit(at);
      at = next;
    }
  }

  /** The items now, as an array (for a pass that empties the list). */
  toArray(): T[] {
    const items: T[] = [];
    this.forEach((item) => items.push(item));
    return items;
  }

  clear(): void {
    for (const item of this.toArray()) this.delete(item);
  }
}
