import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { buildFilteredView, extendFilteredView, matchPosition, parseFilter, type RecordFilter } from '../../../src/tui/record-filter.js';
import { RecordList, type RecordWindow } from '../../../src/tui/record-list.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

const WINDOW: RecordWindow = { maxRecords: 100, maxBodyChars: Number.MAX_SAFE_INTEGER };
const many = (count: number, overrides: Partial<CallRecord> = {}): CallRecord[] => Array.from({ length: count }, () => makeRecord(overrides));

describe('the record window', () => {
  it('keeps exactly the newest N of N+k records, at their indices', () => {
    const records = many(137);
    const list = RecordList.from(records, WINDOW);
    expect(list.size).toBe(100);
    expect(list.start).toBe(37);
    expect(list.length).toBe(137);
    for (let i = 0; i < 137; i++) expect(list.at(i)).toBe(i < 37 ? undefined : records[i]);
    expect(list.indexOf(records[36]?.id as string)).toBeUndefined();
    expect(list.indexOf(records[37]?.id as string)).toBe(37);
    expect(list.indexOf(records[136]?.id as string)).toBe(136);
  });

  it('holds no more than a quarter beyond the window, and releases every dropped record', () => {
    let list = RecordList.empty(WINDOW);
    let isReleased = false;
    for (let i = 0; i < 2_000; i++) {
      list = list.upsert(makeRecord());
      expect(list.held).toBeLessThanOrEqual(125);
      if (i > 100 && list.held === list.size) isReleased = true;
    }
    expect(list.size).toBe(100);
    // After a compaction the list references exactly the kept records, no dropped one.
    expect(isReleased).toBe(true);
  });

  it('never changes an older view when records drop off a newer one', () => {
    const records = many(100);
    const full = RecordList.from(records, WINDOW);
    let later = full;
    for (const record of many(300)) later = later.upsert(record);
    expect(full.start).toBe(0);
    expect(full.size).toBe(100);
    expect(records.every((record, i) => full.at(i) === record && full.indexOf(record.id) === i)).toBe(true);
    expect(later.at(99)).toBeUndefined();
    // A branch from the older view drops from its own copy.
    const branch = full.upsert(makeRecord());
    expect(branch.start).toBe(1);
    expect(full.at(0)).toBe(records[0]);
  });

  it('drops the oldest while the bodies exceed the character limit, keeping the newest', () => {
    const window: RecordWindow = { maxRecords: 100, maxBodyChars: 10_000 };
    const big = (chars: number): CallRecord => makeRecord({ response: { status: 200, headers: {}, body: 'x'.repeat(chars) } });
    const records = [big(4_000), big(4_000), big(4_000)];
    const list = RecordList.from(records, window);
    expect(list.start).toBe(1);
    expect(list.at(1)).toBe(records[1]);
    const huge = list.upsert(big(50_000));
    expect(huge.size).toBe(1);
    expect(huge.at(huge.start)?.response?.body.length).toBe(50_000);
    // An update that makes a kept record bigger drops older ones too.
    const grown = list.upsert({ ...(records[2] as CallRecord), response: { status: 200, headers: {}, body: 'y'.repeat(9_000) } });
    expect(grown.size).toBe(1);
    expect(grown.at(2)?.response?.body.startsWith('y')).toBe(true);
  });

  it('updates a kept record and ignores one that dropped off', () => {
    const records = many(150);
    let list = RecordList.from(records, WINDOW);
    list = list.upsert({ ...(records[120] as CallRecord), lateAnswer: true });
    expect(list.at(120)?.lateAnswer).toBe(true);
    // A dropped record arriving again is a new record on top (the window is its newest calls).
    list = list.upsert({ ...(records[10] as CallRecord), lateAnswer: true });
    expect(list.length).toBe(151);
    expect(list.at(150)?.lateAnswer).toBe(true);
  });
});

describe('a filter over the window', () => {
  const refunds = parseFilter('tool:refund_order') as RecordFilter;

  it('keeps only the matches of kept records, and finds none of a dropped one', () => {
    const records = Array.from({ length: 90 }, (_, i) => makeRecord({ tool: i % 3 === 0 ? 'refund_order' : 'lookup_order' }));
    let list = RecordList.from(records, WINDOW);
    let view = buildFilteredView(refunds, list);
    expect(view.matches.size).toBe(30);
    for (const record of many(60, { tool: 'lookup_order' })) list = list.upsert(record);
    view = extendFilteredView(view, list);
    expect(list.start).toBe(50);
    // Refunds at 0, 3, …, 87: the kept ones are 51 … 87.
    expect(view.matches.size).toBe(13);
    expect(view.matches.at(view.matches.start)).toBe(51);
    expect(matchPosition(view, 48)).toBeUndefined();
    expect(matchPosition(view, 51)).toBe(view.matches.start);
    expect(buildFilteredView(refunds, list).matches.size).toBe(13);
  });
});
