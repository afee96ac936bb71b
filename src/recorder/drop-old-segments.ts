import { unlink } from 'node:fs/promises';
import { errorCode, type Logger } from '../shared/index.js';
import { removeIndex } from './call-index-writer.js';
import { removeFilter } from './ids-filter-writer.js';
import { segmentsToDrop, type RetentionLimits, type SegmentTally } from './retention.js';

/**
 * Deletes the oldest whole segments past the caps, with their call indexes
 * and ids filters, and takes them off the front of `segments`; the live
 * (last) one is never touched. A segment that cannot be deleted stops it, said once per try.
 */
export async function dropOldSegments(segments: Array<SegmentTally & { path: string }>, limits: RetentionLimits, logger: Logger): Promise<void> {
  const drop = segmentsToDrop(segments, limits);
  for (let i = 0; i < drop; i += 1) {
    const oldest = segments[0];
    if (!oldest) return;
    try {
      await unlink(oldest.path);
      await removeIndex(oldest.path);
      await removeFilter(oldest.path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') {
        logger.warn('Could not delete an old call segment; the store may grow past its limit.', { path: oldest.path, reason: errorCode(error) });
        return;
      }
    }
    segments.shift();
  }
}
