import { describe, expect, it } from 'vitest';
import { RecordList } from '../../../src/tui/record-list.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

describe('RecordList', () => {
  it('appends and finds records by id', () => {
    const [a, b] = [makeRecord(), makeRecord()];
    const list = RecordList.empty().upsert(a).upsert(b);
    expect(list.length).toBe(2);
    expect(list.at(1)).toBe(b);
    expect(list.indexOf(a.id)).toBe(0);
    expect(list.indexOf('rec_missing')).toBeUndefined();
  });

  it('never lets an older view see later appends, even on a branch', () => {
    const base = RecordList.from([makeRecord()]);
    const [x, y, z] = [makeRecord(), makeRecord(), makeRecord()];
    const withX = base.upsert(x);
    const withY = base.upsert(y); // a branch: copies
    const withXZ = withX.upsert(z);
    const withYX = withY.upsert(x);
    expect(base.length).toBe(1);
    expect(base.indexOf(x.id)).toBeUndefined();
    expect(withX.at(1)).toBe(x);
    expect(withY.at(1)).toBe(y);
    expect(withY.indexOf(x.id)).toBeUndefined();
    expect(withXZ.indexOf(z.id)).toBe(2);
    expect(withYX.indexOf(x.id)).toBe(2);
    expect(withX.indexOf(x.id)).toBe(1);
  });

  it('replaces a record with the same id without touching older views', () => {
    const record = makeRecord();
    const list = RecordList.from([makeRecord(), record]);
    const updated = list.upsert({ ...record, lateAnswer: true });
    expect(updated.length).toBe(2);
    expect(updated.at(1)?.lateAnswer).toBe(true);
    expect(list.at(1)?.lateAnswer).toBeUndefined();
    expect(updated.upsert(makeRecord()).at(1)?.lateAnswer).toBe(true);
  });

  it('keeps every update after many replacements (compaction)', () => {
    const records = Array.from({ length: 50 }, () => makeRecord());
    let list = RecordList.from(records);
    const before = list;
    for (let round = 0; round < 12; round++) {
      for (const [i, record] of records.entries()) list = list.upsert({ ...record, durationMs: round * 100 + i });
    }
    list = list.upsert(makeRecord());
    expect(list.length).toBe(51);
    expect(records.map((_, i) => list.at(i)?.durationMs)).toEqual(records.map((_, i) => 1100 + i));
    expect(records.every((record, i) => list.indexOf(record.id) === i)).toBe(true);
    expect(before.at(0)?.durationMs).toBe(12);
  });
});
