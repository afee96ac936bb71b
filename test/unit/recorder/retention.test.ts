import { describe, expect, it } from 'vitest';
import { resolveRetention, segmentsToDrop } from '../../../src/recorder/retention.js';

const limits = resolveRetention({ maxRecords: 10, maxBytes: 1_000, segmentMaxRecords: 4, segmentMaxBytes: 400 });
const seg = (records: number, bytes = records * 10) => ({ records, bytes });

describe('resolveRetention', () => {
  it('defaults to 50,000 records / 500 MB in segments of 5,000 / 50 MB', () => {
    expect(resolveRetention({})).toEqual({
      maxRecords: 50_000,
      maxBytes: 500 * 1024 * 1024,
      segmentMaxRecords: 5_000,
      segmentMaxBytes: 50 * 1024 * 1024,
    });
  });

  it.each([
    [{ maxRecords: 3 }, { maxRecords: 3, segmentMaxRecords: 3 }],
    [{ maxBytes: 100 }, { maxBytes: 100, segmentMaxBytes: 100 }],
    [{ maxRecords: 0, segmentMaxRecords: -1 }, { maxRecords: 50_000, segmentMaxRecords: 5_000 }],
    [{ maxRecords: Number.NaN, segmentMaxRecords: 2.7 }, { maxRecords: 50_000, segmentMaxRecords: 2 }],
  ])('%j → %j', (given, expected) => {
    expect(resolveRetention(given)).toMatchObject(expected);
  });
});

describe('segmentsToDrop', () => {
  it.each([
    ['under both caps', [seg(4), seg(4), seg(2)], 0],
    ['one record over the cap', [seg(4), seg(4), seg(3)], 1],
    ['far over the cap', [seg(4), seg(4), seg(4), seg(4), seg(1)], 2],
    ['over the byte cap', [seg(1, 400), seg(1, 400), seg(1, 300)], 1],
    ['never the live (last) segment', [seg(40, 5_000)], 0],
    ['keeps the live one even when only it fits', [seg(4), seg(12)], 1],
    ['nothing at all', [], 0],
  ])('%s', (_name, segments, drop) => {
    expect(segmentsToDrop(segments, limits)).toBe(drop);
  });
});
