import { describe, expect, it } from 'vitest';
import { createCallIndex } from '../../../src/inspector-server/call-index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { parseFilter, recordMatches } from '../../../src/median/index.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

function indexOver(store: CallRecord[], maxRows?: number) {
  return createCallIndex({
    matcherFor(text) {
      const filter = parseFilter(text);
      return filter ? (record) => recordMatches(record, filter) : null;
    },
    async *scanRecords() {
      for (let i = store.length - 1; i >= 0; i--) yield store[i]!;
    },
    ...(maxRows ? { maxRows } : {}),
  });
}

describe('the inspector call index', () => {
  it('pages newest first, and a filter narrows with the TUI filter language (bodies included)', async () => {
    const store = [
      makeRecord({ tool: 'lookup_order' }),
      makeRecord({ tool: 'refund_order', input: { reason: 'damaged parcel' } }),
      makeRecord({ tool: 'lookup_order', verdict: { kind: 'refused', agentSees: 'no', warnings: [] } }),
    ];
    const index = indexOver(store);
    await index.load();
    const all = await index.page({ offset: 0, limit: 2, filter: '' });
    expect(all).toMatchObject({ total: 3, recorded: 3, offset: 0 });
    expect(all.rows.map((r) => r.id)).toEqual([store[2]!.id, store[1]!.id]);
    expect((await index.page({ offset: 2, limit: 5, filter: '' })).rows.map((r) => r.id)).toEqual([store[0]!.id]);

    expect((await index.page({ offset: 0, limit: 10, filter: 'tool:lookup' })).rows.map((r) => r.id)).toEqual([store[2]!.id, store[0]!.id]);
    expect((await index.page({ offset: 0, limit: 10, filter: 'damaged' })).rows.map((r) => r.id)).toEqual([store[1]!.id]);
    expect((await index.page({ offset: 0, limit: 10, filter: 'tool:lookup -verdict:ref' })).rows.map((r) => r.id)).toEqual([store[0]!.id]);
  });

  it('keeps a filtered view up to date as calls arrive, and counts a call seen twice once', async () => {
    const store = [makeRecord({ tool: 'lookup_order' })];
    const index = indexOver(store);
    await index.load();
    expect((await index.page({ offset: 0, limit: 10, filter: 'tool:refund' })).total).toBe(0);
    const arriving = makeRecord({ tool: 'refund_order' });
    store.push(arriving);
    index.add(arriving);
    index.add(arriving);
    expect((await index.page({ offset: 0, limit: 10, filter: 'tool:refund' })).rows.map((r) => r.id)).toEqual([arriving.id]);
    expect(index.size()).toBe(2);
  });

  it('holds no row until it is read: calls before that come from the store', async () => {
    const store = [makeRecord()];
    const index = indexOver(store);
    const arriving = makeRecord();
    store.push(arriving);
    expect(index.add(arriving).id).toBe(arriving.id);
    expect(index.size()).toBe(0);
    const page = await index.page({ offset: 0, limit: 10, filter: '' });
    expect(page.rows.map((r) => r.id)).toEqual([arriving.id, store[0]!.id]);
    const later = makeRecord();
    index.add(later);
    expect(index.size()).toBe(3);
  });

  it('holds at most maxRows, dropping the oldest', async () => {
    const store = Array.from({ length: 30 }, () => makeRecord());
    const index = indexOver(store, 10);
    await index.load();
    expect(index.size()).toBe(10);
    const page = await index.page({ offset: 0, limit: 100, filter: '' });
    expect(page.rows[0]!.id).toBe(store[29]!.id);
    expect(page.rows.at(-1)!.id).toBe(store[20]!.id);
  });
});
