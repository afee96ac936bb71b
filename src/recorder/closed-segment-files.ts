import { errorCode } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { isIndexWhole, rebuildIndex } from './call-index-writer.js';
import { hasFilter, writeFilter, type FilterSoFar } from './ids-filter-writer.js';

export interface IndexedSegment {
  path: string;
  inode: bigint;
  /** Bytes up to its last complete line. */
  bytes: number;
}

interface Upkeep {
  path: string;
  /** Its call index is not whole (see `isIndexWhole`): rebuilt first. */
  isIndexStale: boolean;
  /** Closed by this writer (`closed`): seen to even by `close`. */
  isJustClosed: boolean;
  /** Its filter as the writer made it while writing the segment, if it did. */
  made?: FilterSoFar;
}

/**
 * The files beside each closed segment, made whole in the background one
 * segment after the other: its call index rebuilt when it is not whole
 * (call-index-writer.ts), then its ids filter written when it has none
 * made for it: the one the writer made as it wrote the segment, else one
 * made from the index (ids-filter-writer.ts). For every closed segment
 * when the writer opens the data dir (newest first: lookups start there),
 * and for each segment as the writer closes it. `close` still sees to the
 * segments this writer closed (a filter each, a few milliseconds: the next
 * `show` finds them), skips the others not begun, and waits for the one
 * under way. A segment deleted meanwhile (retention) or unreadable is
 * passed over: lookups read its index, or the segment, as without them.
 */
export class ClosedSegmentFiles {
  private readonly queue: Upkeep[] = [];
  private running: Promise<void> | undefined;
  private isClosed = false;

  constructor(private readonly logger: Logger) {}

  /** The closed segments found when the data dir was opened. */
  async start(segments: readonly IndexedSegment[]): Promise<void> {
    if (this.isClosed) return;
    const whole = await Promise.all(segments.map((s) => isIndexWhole(s.path, s.inode, s.bytes)));
    this.add(segments.map((s, i) => ({ path: s.path, isIndexStale: !whole[i], isJustClosed: false })).reverse());
  }

  /** A segment the writer just closed (it writes the next one), and the filter it made of it while writing it, if it did. */
  closed(path: string, made?: FilterSoFar): void {
    if (!this.isClosed) this.add([{ path, isIndexStale: false, isJustClosed: true, ...(made ? { made } : {}) }]);
  }

  private add(items: readonly Upkeep[]): void {
    for (const item of items) {
      const queued = this.queue.find((each) => each.path === item.path);
      if (!queued) this.queue.push(item);
      else {
        queued.isIndexStale ||= item.isIndexStale;
        queued.isJustClosed ||= item.isJustClosed;
        queued.made ??= item.made;
      }
    }
    if (!this.running && this.queue.length > 0) this.running = this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) {
      const { path, isIndexStale, made } = item;
      try {
        if (isIndexStale) await rebuildIndex(path);
        if (!(await hasFilter(path))) await writeFilter(path, made);
      } catch (error) {
        // Deleted by retention meanwhile, or unreadable: lookups read that segment through.
        this.logger.debug('Could not make a closed call segment’s index or ids filter.', { path, reason: errorCode(error) });
      }
    }
  }

  async close(): Promise<void> {
    this.isClosed = true;
    const kept = this.queue.filter((item) => item.isJustClosed);
    this.queue.splice(0, this.queue.length, ...kept);
    await this.running;
  }
}
