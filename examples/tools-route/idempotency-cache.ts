/**
 * Remembers the first answer to each toolCallId, so a repeated call (Median's
 * toolCallId is an idempotency key; `median-dev replay` reuses it) gets that
 * answer back instead of running the tool twice. Bounded: the oldest entry is
 * forgotten once `limit` are kept. A call still running is shared, not rerun.
 */
export interface IdempotencyCache<T> {
  get(id: string): Promise<T> | undefined;
  remember(id: string, answer: Promise<T>): void;
  forget(id: string): void;
  readonly size: number;
}

export function createIdempotencyCache<T>(limit: number): IdempotencyCache<T> {
  const entries = new Map<string, Promise<T>>();
  return {
    get: (id) => entries.get(id),
    remember(id, answer) {
      entries.delete(id);
      entries.set(id, answer);
      while (entries.size > limit) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
    forget(id) {
      entries.delete(id);
    },
    get size() {
      return entries.size;
    },
  };
}
