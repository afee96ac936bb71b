import type { RetentionLimits, SegmentTally } from './retention.js';

/**
 * With `os` durability, a batch that fits the open live segment is written
 * on the main thread (one writev syscall) in the turn its appends were made,
 * not on the thread pool: written to the OS when it returns, as the pool's
 * write is, without the round trip (a pool thread woken, then the loop,
 * and promise turns; measured ~55 µs of CPU per batch on this 2-core VM).
 * As with a logger writing synchronously (pino's sonic-boom with
 * `sync: true`), a write of a few KB into the page cache is a memory copy
 * that does not stall the loop (measured: fstat + writev of 3-9 KB + the
 * index line, ~15 µs at the median). The kernel makes such a write wait
 * when dirty pages pass its limits (far above a few MB/s of records, synced
 * every second), on a filesystem that waits on a server (where the batch's
 * answers wait for that write anyway), and when the page it appends to is
 * being written back on a device that needs stable pages (btrfs checksums,
 * some RAID): so while the background disk sync runs, batches go through
 * the pool. Opening, rotating, syncing, the once-a-second path check,
 * retention drops, batches over WRITE_NOW_MAX_BYTES and every `disk` write
 * (it waits for the disk) stay on the thread pool.
 */
export const WRITE_NOW_MAX_BYTES = 256 * 1024;

/**
 * How many of the next lines fit the live segment (after its records and
 * bytes), within `maxBytes` for this write; the first line of an empty
 * segment always fits its caps.
 */
export function linesFitting(live: SegmentTally, lines: readonly { line: Buffer }[], limits: RetentionLimits, maxBytes = Infinity): number {
  let count = 0;
  let bytes = 0;
  for (const { line } of lines) {
    if (live.records + count >= limits.segmentMaxRecords) break;
    if (live.records + count > 0 && live.bytes + bytes + line.length > limits.segmentMaxBytes) break;
    if (bytes + line.length > maxBytes) break;
    bytes += line.length;
    count += 1;
  }
  return count;
}

/**
 * How many of the next lines go into one write on the main thread: those
 * that fit the live (last) segment without a rotation, within
 * WRITE_NOW_MAX_BYTES, and without taking the totals past a cap (which
 * deletes old segments first, on the thread pool); 0 when not even one.
 */
export function linesWritableNow(segments: readonly SegmentTally[], lines: readonly { line: Buffer }[], limits: RetentionLimits): number {
  const live = segments.at(-1);
  if (!live) return 0;
  const count = linesFitting(live, lines, limits, WRITE_NOW_MAX_BYTES);
  if (segments.length < 2) return count;
  let records = count;
  let bytes = 0;
  for (let i = 0; i < count; i += 1) bytes += lines[i]!.line.length;
  for (const segment of segments) {
    records += segment.records;
    bytes += segment.bytes;
  }
  return records > limits.maxRecords || bytes > limits.maxBytes ? 0 : count;
}
