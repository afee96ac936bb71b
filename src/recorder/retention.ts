/**
 * How many records the store keeps. Both totals are hard caps: once either is
 * passed, the oldest whole segments are deleted (never the live one, never a
 * rewrite), so the store holds between `maxRecords - segmentMaxRecords` and
 * `maxRecords` records, and at most `maxBytes` bytes (plus the live segment).
 */
export interface RetentionLimits {
  maxRecords: number;
  maxBytes: number;
  segmentMaxRecords: number;
  segmentMaxBytes: number;
}

export const DEFAULT_RETENTION: Readonly<RetentionLimits> = Object.freeze({
  maxRecords: 50_000,
  maxBytes: 500 * 1024 * 1024,
  segmentMaxRecords: 5_000,
  segmentMaxBytes: 50 * 1024 * 1024,
});

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}

/** Fills in defaults and keeps a segment no bigger than the totals. */
export function resolveRetention(options: Partial<RetentionLimits>): RetentionLimits {
  const maxRecords = positive(options.maxRecords, DEFAULT_RETENTION.maxRecords);
  const maxBytes = positive(options.maxBytes, DEFAULT_RETENTION.maxBytes);
  return {
    maxRecords,
    maxBytes,
    segmentMaxRecords: Math.min(positive(options.segmentMaxRecords, DEFAULT_RETENTION.segmentMaxRecords), maxRecords),
    segmentMaxBytes: Math.min(positive(options.segmentMaxBytes, DEFAULT_RETENTION.segmentMaxBytes), maxBytes),
  };
}

export interface SegmentTally {
  records: number;
  bytes: number;
}

/**
 * How many of the oldest segments to delete so the totals fit the caps. The
 * last segment (the live one) is never counted in.
 */
export function segmentsToDrop(segments: readonly SegmentTally[], limits: RetentionLimits): number {
  let records = 0;
  let bytes = 0;
  for (const segment of segments) {
    records += segment.records;
    bytes += segment.bytes;
  }
  let drop = 0;
  while (drop < segments.length - 1 && (records > limits.maxRecords || bytes > limits.maxBytes)) {
    const oldest = segments[drop];
    if (!oldest) break;
    records -= oldest.records;
    bytes -= oldest.bytes;
    drop += 1;
  }
  return drop;
}
