import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { KEY, MASKED_KEY, makeRecord } from '../../helpers/make-record.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

describe('append and list', () => {
  it('lists newest first and filters by tool, verdict, text and limit', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    const records = [
      makeRecord({ n: 1, tool: 'orderStatus' }),
      makeRecord({ n: 2, tool: 'refund', verdict: { kind: 'refused', agentSees: 'not allowed', warnings: [] } }),
      makeRecord({ n: 3, tool: 'orderStatus', verdict: { kind: 'threw', agentSees: 'Database is down', warnings: [] } }),
      makeRecord({ n: 4, tool: null, kind: 'manifest' }),
      makeRecord({ n: 5, tool: 'refund' }),
    ];
    for (const record of records) await recorder.append(record);
    const store = createCallStore(dataDir);
    const ids = (list: { id: string }[]) => list.map((r) => r.id);
    const [r1, r2, r3, r4, r5] = records.map((r) => r.id);

    expect(ids(await store.list())).toEqual([r5, r4, r3, r2, r1]);
    expect(ids(await store.list({ limit: 2 }))).toEqual([r5, r4]);
    expect(ids(await store.list({ tool: 'orderStatus' }))).toEqual([r3, r1]);
    expect(ids(await store.list({ tool: 'refund', limit: 1 }))).toEqual([r5]);
    expect(ids(await store.list({ verdict: 'refused' }))).toEqual([r2]);
    expect(ids(await store.list({ verdict: 'answered', tool: 'refund' }))).toEqual([r5]);
    expect(ids(await store.list({ text: 'database IS' }))).toEqual([r3]);
    expect(ids(await store.list({ text: 'A-4' }))).toEqual([r4]);
    expect(await store.list({ tool: 'nope' })).toEqual([]);
    expect(await store.list({ limit: 0 })).toEqual([]);
    expect(await store.list()).toEqual([...records].reverse());
    expect(await store.count()).toBe(5);
    expect(recorder.stats()).toMatchObject({ records: 5, failing: false });
  });

  it('reads an empty or missing store as empty', async () => {
    const store = createCallStore(await useDataDir());
    expect(await store.list()).toEqual([]);
    expect(await store.count()).toBe(0);
    expect(await store.get('rec_x')).toBeUndefined();
    await expect(store.findByToolCallId('call_1')).rejects.toMatchObject({ code: 'call_not_found' });
  });

  it('writes the masked record and resolves with it', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, secrets: [KEY] });
    const record = makeRecord({
      request: { method: 'GET', path: '/api/median', headers: { authorization: `Bearer ${KEY}` }, body: '' },
      response: { status: 200, headers: {}, body: JSON.stringify({ connected: true, message: `used ${KEY}` }) },
    });
    const written = await recorder.append(record);
    expect(written.request.headers.authorization).toBe(`Bearer ${MASKED_KEY}`);
    const [stored] = await createCallStore(dataDir).list();
    expect(stored).toEqual(written);
    expect(JSON.stringify(stored)).not.toContain(KEY);
  });

  it('masks a secret added later, and keeps masking the earlier ones', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, secrets: ['first-secret-value-1234'] });
    const newKey = 'median_key_' + 'N'.repeat(36) + 'wxyz';
    const before = await recorder.append(makeRecord({ error: { code: 'x', message: 'first-secret-value-1234 raw-secret-value-9876' } }));
    expect(before.error?.message).toBe('****1234 raw-secret-value-9876');
    recorder.addSecret('raw-secret-value-9876');
    recorder.addSecret(newKey);
    const after = await recorder.append(
      makeRecord({ error: { code: 'x', message: `first-secret-value-1234 raw-secret-value-9876 ${newKey}` } }),
    );
    expect(after.error?.message).toBe('****1234 ****9876 median_key_****wxyz');
  });

  it('loses nothing in 1,000 concurrent appends', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, segmentMaxRecords: 300 });
    const records = Array.from({ length: 1_000 }, (_, i) => makeRecord({ n: 10_000 + i }));
    await Promise.all(records.map((r) => recorder.append(r)));
    const listed = await createCallStore(dataDir).list();
    expect(new Set(listed.map((r) => r.id)).size).toBe(1_000);
    expect(listed.map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    expect(recorder.stats().records).toBe(1_000);
  });

  it('is read by a second store while appends happen', async () => {
    const dataDir = await useDataDir();
    // With disk durability, two appends at a time make every write after the first wait for its group commit (10 ms): on the clock, moved on as each wait is set.
    const clock = createManualClock();
    const recorder = await useRecorder({ dataDir, segmentMaxRecords: 50, clock, durability: 'disk' });
    const reader = createCallStore(dataDir);
    const startedAt = clock.now();
    let appended = 0;
    const writing = advanceShortWaitsUntil(
      clock,
      (async () => {
        for (let i = 0; i < 400; i += 1) {
          await Promise.all([recorder.append(makeRecord({ n: 20_000 + 2 * i })), recorder.append(makeRecord({ n: 20_001 + 2 * i }))]);
          appended += 2;
        }
      })(),
      10,
    );
    let reads = 0;
    while (appended < 800) {
      const before = appended;
      const seen = await reader.list({ limit: 25 });
      // Every durable record is seen, whole and newest first; a line in flight is never half-read.
      expect(seen.length).toBeGreaterThanOrEqual(Math.min(before, 25));
      const ids = seen.map((r) => r.id);
      expect(ids).toEqual([...ids].sort().reverse());
      expect(await reader.count()).toBeGreaterThanOrEqual(before);
      reads += 1;
    }
    await writing;
    // The writes did wait for their group commits, on the clock.
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(10);
    expect(reads).toBeGreaterThan(0);
    expect(await reader.count()).toBe(800);
  });
});

describe('findByToolCallId', () => {
  async function storeWith(...records: ReturnType<typeof makeRecord>[]) {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    for (const record of records) await recorder.append(record);
    return createCallStore(dataDir);
  }

  it('finds by exact id, unique prefix, or record id; a toolCallId resolves to the original, never a replay', async () => {
    const original = makeRecord({ n: 1, toolCallId: 'call_aaaa1111' });
    const other = makeRecord({ n: 2, toolCallId: 'call_bbbb2222' });
    const replay = makeRecord({ n: 3, toolCallId: 'call_aaaa1111', replayOf: original.id });
    const longer = makeRecord({ n: 4, toolCallId: 'call_aaaa11112' });
    const store = await storeWith(original, other, replay, longer);

    expect((await store.findByToolCallId('call_aaaa1111')).id).toBe(original.id);
    expect((await store.findByToolCallId(replay.id)).id).toBe(replay.id);
    expect((await store.findByToolCallId('call_bbbb')).id).toBe(other.id);
    expect((await store.findByToolCallId(' call_b ')).id).toBe(other.id);
    expect((await store.findByToolCallId(original.id)).id).toBe(original.id);
    expect((await store.findByToolCallId(original.id.slice(0, -3))).id).toBe(original.id);
    expect(await store.get(original.id)).toEqual(original);
    expect(await store.get('rec_missing')).toBeUndefined();
  });

  it('names the candidates of an ambiguous prefix', async () => {
    const a = makeRecord({ n: 1, toolCallId: 'call_cccc0001' });
    const b = makeRecord({ n: 2, toolCallId: 'call_cccc0002' });
    const aAgain = makeRecord({ n: 3, toolCallId: 'call_cccc0001' });
    const store = await storeWith(a, b, aAgain);
    const error = await store.findByToolCallId('call_cccc').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'call_ambiguous', details: { total: 2 } });
    const { candidates } = (error as { details: { candidates: { id: string; toolCallId: string }[] } }).details;
    expect(candidates.map((c) => [c.toolCallId, c.id])).toEqual([
      ['call_cccc0001', a.id],
      ['call_cccc0002', b.id],
    ]);
  });

  it('a toolCallId only a new-id replay carries resolves to that replay', async () => {
    const original = makeRecord({ n: 1, toolCallId: 'call_eeee0001' });
    const newIdReplay = makeRecord({ n: 2, toolCallId: 'call_ffff0002', replayOf: original.id });
    const store = await storeWith(original, newIdReplay);
    expect((await store.findByToolCallId('call_ffff0002')).id).toBe(newIdReplay.id);
  });

  it('lists the replays of a record, oldest first, and finds the latest manifest read', async () => {
    const original = makeRecord({ n: 1, toolCallId: 'call_gggg0001' });
    const manifestOld = makeRecord({ n: 2, tool: null, kind: 'manifest', toolCallId: '' });
    const first = makeRecord({ n: 3, toolCallId: 'call_gggg0001', replayOf: original.id });
    const unrelated = makeRecord({ n: 4, toolCallId: 'call_hhhh0001' });
    const second = makeRecord({ n: 5, toolCallId: 'call_iiii0001', replayOf: original.id });
    const manifestNew = makeRecord({ n: 6, tool: null, kind: 'manifest', toolCallId: '' });
    const manifestFailed = makeRecord({ n: 7, tool: null, kind: 'manifest', toolCallId: '', response: { status: 500, headers: {}, body: '{}' } });
    const store = await storeWith(original, manifestOld, first, unrelated, second, manifestNew, manifestFailed);
    expect((await store.replaysOf(original.id)).map((r) => r.id)).toEqual([first.id, second.id]);
    expect(await store.replaysOf(unrelated.id)).toEqual([]);
    expect((await store.latestManifestRead())?.id).toBe(manifestNew.id);
  });

  it.each(['call_zzzz', 'rec_ffff', '', '   '])('an unknown id %j is call_not_found', async (id) => {
    const store = await storeWith(makeRecord({ n: 1, toolCallId: 'call_dddd' }));
    await expect(store.findByToolCallId(id)).rejects.toMatchObject({ code: 'call_not_found' });
  });
});
