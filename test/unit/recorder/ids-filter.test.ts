import { describe, expect, it } from 'vitest';
import { FILTER_MAGIC, countedFilterBuilder, filterPathOf, idsOfEntry, parseFilter, sizedFilterBuilder, type FilterBuilder, type FilterStamp } from '../../../src/recorder/ids-filter.js';
import { jsonNeedle } from '../../../src/recorder/record-text.js';

const stamp: FilterStamp = { inode: 1234567890123n, bytes: 7_328_890, mtimeNs: 1_764_950_000_123_456_789n };
/** The file `builder` (a counted one by default, as made from an index) makes of `ids`. */
function buildFilter(ids: readonly string[], at: FilterStamp, builder: FilterBuilder = countedFilterBuilder()): Buffer {
  for (const id of ids) builder.add(id);
  return builder.build(at);
}
const idsOf = (count: number, tag: string): string[] => Array.from({ length: count }, (_, i) => `call_${tag}${i.toString(16).padStart(24, '0')}`);

describe('the ids filter: which whole ids a closed segment may name', () => {
  it('holds every id it was made from, escaped as a lookup looks for it', () => {
    const ids = [...idsOf(5_000, 'd200970b'), 'rec_01a247268b51000000000000', 'tc "quoted" \\ back', 'caf\u00e9 \u2028 \u{1f600}', ''];
    const filter = parseFilter(buildFilter(ids, stamp), stamp)!;
    expect(filter).toBeDefined();
    expect(ids.filter((id) => !filter.mayHold(jsonNeedle(id)))).toEqual([]);
  });

  it('rules out about 99 in 100 ids it was not made from (10 bits an id, 7 probes)', () => {
    const filter = parseFilter(buildFilter(idsOf(10_000, 'aaaaaaaa'), stamp), stamp)!;
    const others = idsOf(20_000, 'bbbbbbbb');
    const maybes = others.filter((id) => filter.mayHold(jsonNeedle(id))).length;
    expect(maybes / others.length).toBeLessThan(0.02);
    // Sequential ids differing only in their last digits (the bench's, a counter's) spread as well as random ones.
    expect(filter.mayHold(jsonNeedle('call_aaaaaaaa000000000000000000002710'))).toBe(false);
  });

  it('sized for a full segment as the recorder makes it, holds every id, also past the ids it was sized for', () => {
    const ids = idsOf(12_000, 'dd');
    const filter = parseFilter(buildFilter(ids, stamp, sizedFilterBuilder(10_000)), stamp)!;
    expect(ids.filter((id) => !filter.mayHold(jsonNeedle(id)))).toEqual([]);
    const others = idsOf(10_000, 'ee');
    expect(others.filter((id) => filter.mayHold(jsonNeedle(id))).length / others.length).toBeLessThan(0.05);
    // The same ids, as many as it was sized for: the same file as one made from the index.
    expect(buildFilter(ids.slice(0, 10_000), stamp, sizedFilterBuilder(10_000))).toEqual(buildFilter(ids.slice(0, 10_000), stamp));
  });

  it('an empty segment’s filter holds nothing', () => {
    const filter = parseFilter(buildFilter([], stamp), stamp)!;
    expect(filter.mayHold(jsonNeedle('call_x'))).toBe(false);
  });

  it.each([
    ['another inode (the segment deleted and made again)', { ...stamp, inode: stamp.inode + 1n }],
    ['another size (appended to)', { ...stamp, bytes: stamp.bytes + 10 }],
    ['another modification time (rewritten in place)', { ...stamp, mtimeNs: stamp.mtimeNs + 1n }],
  ])('is not used for a segment with %s', (_, now) => {
    expect(parseFilter(buildFilter(idsOf(10, 'cc'), stamp), now)).toBeUndefined();
  });

  it.each([
    ['empty', () => Buffer.alloc(0)],
    ['not JSON', () => Buffer.from('{{{{\n\0\0\0\0\0\0\0\0')],
    ['another magic', () => rewriteHeader((h) => [`${FILTER_MAGIC}!`, ...h.slice(1)])],
    ['another version', () => rewriteHeader((h) => [h[0], 2, ...h.slice(2)])],
    ['bits not a multiple of 64', () => rewriteHeader((h) => [...h.slice(0, 5), 100, h[6]])],
    ['another number of probes', () => rewriteHeader((h) => [...h.slice(0, 6), 3])],
    ['cut short', () => buildFilter(idsOf(10, 'cc'), stamp).subarray(0, -1)],
    ['with bytes past its bits', () => Buffer.concat([buildFilter(idsOf(10, 'cc'), stamp), Buffer.alloc(8)])],
    ['no header line', () => Buffer.alloc(600, 0x41)],
  ])('a file that is %s is not used', (_, file) => {
    expect(parseFilter(file(), stamp)).toBeUndefined();
  });

  it('names every id of an index entry, and is named after its segment', () => {
    expect(idsOfEntry({ kind: 'call', id: 'rec_1', toolCallId: 'call_1', replayOf: null })).toEqual(['rec_1', 'call_1']);
    expect(idsOfEntry({ kind: 'call', id: 'rec_2', toolCallId: 'call_1', replayOf: 'rec_1' })).toEqual(['rec_2', 'call_1', 'rec_1']);
    expect(idsOfEntry({ kind: 'repeat', repeatOf: 'rec_1' })).toEqual(['rec_1']);
    expect(idsOfEntry({ kind: 'other' })).toEqual([]);
    expect(filterPathOf('/d/calls/calls-000001.jsonl')).toBe('/d/calls/calls-000001.ids');
  });
});

/** A filter of 10 ids whose header `edit` rewrote (its bits kept). */
function rewriteHeader(edit: (header: unknown[]) => unknown[]): Buffer {
  const file = buildFilter(idsOf(10, 'cc'), stamp);
  const end = file.indexOf(0x0a);
  const header = JSON.parse(file.subarray(0, end).toString('utf8')) as unknown[];
  return Buffer.concat([Buffer.from(JSON.stringify(edit(header))), file.subarray(end)]);
}
