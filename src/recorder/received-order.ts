import type { CallRecord } from '../median/index.js';

/**
 * Records are written when a call finishes, so the store holds them in
 * finish order: a slow call received first is written after the quick ones
 * that came in behind it. This keeps the `limit` newest by `receivedAt`
 * while the store is read newest-written first, and says when reading can
 * stop: a record that finished before the oldest one kept was received even
 * earlier, and so is every record written before it.
 */
export interface ReceivedOrder {
  add(record: CallRecord): void;
  /** Every record from here on (older in the store) was received before the ones kept. */
  isPastLimit(record: CallRecord): boolean;
  /** The records kept, newest `receivedAt` first. */
  records(): CallRecord[];
}

/** Writes of calls finishing together may land a little out of order (group commit, concurrent appends). */
const WRITE_ORDER_SLACK_MS = 5_000;

function receivedMs(record: CallRecord): number {
  const at = Date.parse(record.receivedAt);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
}

function finishedMs(record: CallRecord): number {
  return receivedMs(record) + Math.max(0, record.durationMs ?? 0);
}

export function createReceivedOrder(limit: number): ReceivedOrder {
  /** Kept newest received first; at most `limit`. */
  const kept: CallRecord[] = [];
  return {
    add(record) {
      const at = receivedMs(record);
      let index = kept.length;
      while (index > 0 && receivedMs(kept[index - 1]!) < at) index -= 1;
      if (index >= limit) return;
      kept.splice(index, 0, record);
      if (kept.length > limit) kept.pop();
    },
    isPastLimit(record) {
      if (kept.length < limit) return false;
      return finishedMs(record) + WRITE_ORDER_SLACK_MS < receivedMs(kept[kept.length - 1]!);
    },
    records: () => [...kept],
  };
}
