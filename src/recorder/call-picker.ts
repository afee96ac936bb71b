/** What picking a call needs of a record (a record itself, or its index entry). */
export interface CallKeys {
  id: string;
  toolCallId: string;
  replayOf: string | null;
}

export interface CallPicker<T extends CallKeys> {
  /** Offers the next record, newest first; true when it is the one (its record id is the id looked for). */
  offer(item: T): boolean;
  /** After the last offer: the one call meant, or every distinct one the prefix matches (none: not found). */
  result(): { only: T } | { distinct: T[] };
}

/**
 * How `findByToolCallId` chooses, fed newest first, shared by the indexed
 * lookup and the full scan so both answer alike: a record id wins at once;
 * an exact toolCallId gives its original (the first that is not a replay,
 * else the first); else the distinct records a prefix of either matches.
 */
export function createCallPicker<T extends CallKeys>(wanted: string): CallPicker<T> {
  const byKey = new Map<string, T>();
  let found: T | undefined;
  return {
    offer(item) {
      if (item.id === wanted) {
        found = item;
        return true;
      }
      if (item.toolCallId !== '' && item.toolCallId.startsWith(wanted)) {
        const key = `tc:${item.toolCallId}`;
        const known = byKey.get(key);
        // Newest first: a later one that is at least as original replaces it.
        if (!known || item.replayOf === null || known.replayOf !== null) byKey.set(key, item);
      }
      if (item.id.startsWith(wanted)) byKey.set(`id:${item.id}`, item);
      return false;
    },
    result() {
      if (found) return { only: found };
      const exact = byKey.get(`tc:${wanted}`);
      if (exact) return { only: exact };
      const distinct = [...new Map([...byKey.values()].map((item) => [item.id, item])).values()];
      const [only] = distinct;
      return distinct.length === 1 && only ? { only } : { distinct };
    },
  };
}
