import { open, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { createCallStore, type Recorder } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { fillWithReplays } from './filled-store.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

/** 12 segments of 25 records, an original with two replays (one keeping its toolCallId) and a repeat line. */
async function filledStore(recorder: Recorder): Promise<{ records: CallRecord[]; original: CallRecord; replays: CallRecord[] }> {
  const { records, repeated, replays } = await fillWithReplays(recorder, { count: 300, originalAt: 10, repeats: 4 });
  return { records, original: repeated, replays };
}

const callsDir = (dataDir: string): string => join(dataDir, 'calls');
const indexes = async (dataDir: string): Promise<string[]> => (await readdir(callsDir(dataDir))).filter((f) => f.endsWith('.idx')).sort();
const filters = async (dataDir: string): Promise<string[]> => (await readdir(callsDir(dataDir))).filter((f) => f.endsWith('.ids')).sort();
/** A store as a median-dev before ids filters left it (ids-filter.test.ts has the lookups with them). */
async function removeFilters(dataDir: string): Promise<void> {
  for (const name of await filters(dataDir)) await rm(join(callsDir(dataDir), name));
}
const options = (dataDir: string) => ({ dataDir, segmentMaxRecords: 25, groupCommitMs: 0 });

describe('the call index: lookups by id read the index, not the segments', () => {
  it('finds records, replays and repeats, and answers not found and ambiguous, reading no segment line', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    const { records, original, replays } = await filledStore(recorder);
    expect((await indexes(dataDir)).length).toBeGreaterThanOrEqual(12);

    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(original.toolCallId)).toEqual(original);
    expect(store.lastLookupLinesRead()).toBe(0);
    expect(await store.findByToolCallId(records[0]!.id)).toEqual(records[0]);
    expect(await store.findByToolCallId(replays[1]!.id)).toEqual(replays[1]);
    expect(await store.get(original.id)).toEqual(original);
    expect(await store.replaysOf(original.id)).toEqual(replays);
    expect(store.lastLookupLinesRead()).toBe(0);
    await expect(store.findByToolCallId('call_nobody')).rejects.toMatchObject({ code: 'call_not_found' });
    expect(await store.get('rec_nobody')).toBeUndefined();
    await expect(store.findByToolCallId('call_0')).rejects.toMatchObject({ code: 'call_ambiguous', details: { total: 300 } });
    expect(store.lastLookupLinesRead()).toBe(0);
  });

  it('show’s lookup (findWithReplays) reads each index once: the call’s replays and repeat line come from the same read', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    const { original, replays } = await filledStore(recorder);
    await recorder.close();
    await removeFilters(dataDir);
    const names = await indexes(dataDir);
    // Each index's entry lines: what one search reads (its header line is read apart, when it is opened).
    let bodies = 0;
    for (const name of names) {
      const text = await readFile(join(callsDir(dataDir), name));
      bodies += text.length - (text.indexOf(0x0a) + 1);
    }
    const oneSegment = Math.max(...(await Promise.all(names.map(async (name) => (await readFile(join(callsDir(dataDir), name))).length))));

    const store = createCallStore(dataDir);
    // The original is in the oldest segment; one replay keeps its toolCallId, the other has its own.
    expect(await store.findWithReplays(original.toolCallId)).toEqual({ record: original, replays });
    expect(store.lastLookupLinesRead()).toBe(0);
    // Every index once, and a segment once more where an id to follow was found (the original's, each
    // replay's: at most 4); the two lookups it stands for read every index at least twice.
    expect(store.lastLookupIndexBytesRead()).toBeGreaterThanOrEqual(bodies);
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(Math.min(bodies + 4 * oneSegment, 1.5 * bodies));
    // The same answers as the two lookups it stands for, which read the indexes twice.
    expect(await store.findByToolCallId(original.toolCallId)).toEqual(original);
    expect(await store.replaysOf(original.id)).toEqual(replays);
    // By record id, also in one read: its search finds the replays, whose ids (for their repeat lines) are followed.
    expect(await store.findWithReplays(original.id)).toEqual({ record: original, replays });
    expect(store.lastLookupIndexBytesRead()).toBeGreaterThanOrEqual(bodies);
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(Math.min(bodies + 4 * oneSegment, 1.5 * bodies));
    // A replay (whose own replays are none).
    expect(await store.findWithReplays(replays[1]!.toolCallId)).toEqual({ record: replays[1], replays: [] });
  });

  it('findWithReplays answers alike when more calls share a toolCallId than it follows in one read', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    // Seven records under one toolCallId (Median sent it again), across segments; the oldest is the original.
    const shared: CallRecord[] = [];
    for (let n = 1; n <= 140; n += 1) {
      const record = await recorder.append(makeRecord({ n, ...(n % 20 === 1 ? { toolCallId: 'call_sent_again' } : {}) }));
      if (n % 20 === 1) shared.push(record);
    }
    const replay = await recorder.append(makeRecord({ n: 141, toolCallId: 'call_replayed_anew', replayOf: shared[0]!.id }));
    const store = createCallStore(dataDir);
    const found = await store.findWithReplays('call_sent_again');
    expect(found.record).toEqual(await store.findByToolCallId('call_sent_again'));
    expect(found.replays).toEqual(await store.replaysOf(found.record.id));
    expect(found.replays.map((r) => r.id)).toContain(replay.id);
  });

  it('does not read other segments: one overwritten with junk is never seen by a lookup', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    const { records } = await filledStore(recorder);
    // The oldest segment's bytes replaced in place (same file, same size), its newlines kept.
    const oldest = join(callsDir(dataDir), 'calls-000001.jsonl');
    const junk = (await readFile(oldest, 'utf8')).replace(/[^\n]/g, 'x');
    const handle = await open(oldest, 'r+');
    await handle.write(junk, 0);
    await handle.close();

    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(records[299]!.toolCallId)).toEqual(records[299]);
    expect(await store.replaysOf(records[299]!.id)).toEqual([]);
    expect(store.skippedLines()).toBe(0);
    // A scan reads it: the junk is counted.
    await store.list();
    expect(store.skippedLines()).toBeGreaterThan(0);
  });

  it('after a restart, the live segment’s index goes on and both old and new records are found', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder(options(dataDir));
    const { records } = await filledStore(first);
    await first.close();
    const second = await useRecorder(options(dataDir));
    const newer = await second.append(makeRecord({ n: 400 }));
    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(newer.toolCallId)).toEqual(newer);
    expect(await store.findByToolCallId(records[5]!.toolCallId)).toEqual(records[5]);
    expect(store.lastLookupLinesRead()).toBe(0);
  });

  it('a torn index (killed mid-write) loses nothing: its end is read from the segment, then repaired', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder(options(dataDir));
    const { records } = await filledStore(first);
    await first.close();
    const livePath = join(callsDir(dataDir), (await indexes(dataDir)).at(-1)!);
    const text = await readFile(livePath, 'utf8');
    // Cut in the middle of its third-last line.
    const cut = text.lastIndexOf('\n', text.lastIndexOf('\n', text.length - 2) - 1) - 7;
    await truncate(livePath, cut);

    const store = createCallStore(dataDir);
    const newest = records[299]!;
    expect(await store.findByToolCallId(newest.toolCallId)).toEqual(newest);
    expect(store.lastLookupLinesRead()).toBeGreaterThan(0);

    // The next writer makes the live index whole before it appends to it.
    const second = await useRecorder(options(dataDir));
    const newer = await second.append(makeRecord({ n: 401 }));
    expect(await store.findByToolCallId(newest.toolCallId)).toEqual(newest);
    expect(await store.findByToolCallId(newer.toolCallId)).toEqual(newer);
    expect(store.lastLookupLinesRead()).toBe(0);
  });

  it('a corrupt or lying index gives no wrong answer: what it names is checked against the segment', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    const { records, original } = await filledStore(recorder);
    const dir = callsDir(dataDir);
    // Segment 2's index names record 26 where record 27 is, and record 27 where 26 is.
    const second = join(dir, 'calls-000002.idx');
    const [a, b] = [records[25]!, records[26]!];
    const swapped = (await readFile(second, 'utf8')).replaceAll(a.id, '@A').replaceAll(b.id, a.id).replaceAll('@A', b.id);
    await writeFile(second, swapped);
    // Segment 3's is not JSON from its second line on.
    await writeFile(join(dir, 'calls-000003.idx'), `${(await readFile(join(dir, 'calls-000003.idx'), 'utf8')).split('\n')[0]}\n{{{{\n`);
    // Segment 4 has segment 5's index (another file's inode in its header).
    await writeFile(join(dir, 'calls-000004.idx'), await readFile(join(dir, 'calls-000005.idx')));

    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(a.id)).toEqual(a);
    expect(await store.findByToolCallId(b.toolCallId)).toEqual(b);
    expect(await store.findByToolCallId(records[60]!.toolCallId)).toEqual(records[60]);
    expect(await store.findByToolCallId(records[80]!.toolCallId)).toEqual(records[80]);
    expect(await store.findByToolCallId(original.toolCallId)).toEqual(original);
  });

  it('missing indexes are read through, rebuilt by the next writer, and go with their segment', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder(options(dataDir));
    const { records, original, replays } = await filledStore(first);
    await first.close();
    for (const name of await indexes(dataDir)) await rm(join(callsDir(dataDir), name));
    await removeFilters(dataDir);

    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(records[3]!.toolCallId)).toEqual(records[3]);
    expect(await store.replaysOf(original.id)).toEqual(replays);
    expect(store.lastLookupLinesRead()).toBeGreaterThan(300);

    // The next writer rebuilds them in the background (close stops between two, so the test waits for them all).
    const second = await useRecorder({ ...options(dataDir), maxRecords: 150 });
    await second.append(makeRecord({ n: 500 }));
    const segmentsNow = async () => (await readdir(callsDir(dataDir))).filter((f) => f.endsWith('.jsonl')).length;
    await vi.waitFor(async () => expect((await indexes(dataDir)).length).toBe(await segmentsNow()), { timeout: 10_000, interval: 20 });
    // And the ids filter of each closed segment (all but the live one) from its index.
    await vi.waitFor(async () => expect((await filters(dataDir)).length).toBe((await segmentsNow()) - 1), { timeout: 10_000, interval: 20 });
    await second.close();
    expect(await store.findByToolCallId(records[299]!.toolCallId)).toEqual(records[299]);
    expect(store.lastLookupLinesRead()).toBe(0);
    // Retention took the oldest segments and their indexes and filters.
    const names = await readdir(callsDir(dataDir));
    const segments = names.filter((f) => f.endsWith('.jsonl')).map((f) => f.replace('.jsonl', ''));
    expect(names.filter((f) => f.endsWith('.idx')).map((f) => f.replace('.idx', ''))).toEqual(segments);
    expect(names.filter((f) => f.endsWith('.ids')).map((f) => f.replace('.ids', ''))).toEqual(segments.slice(0, -1));
    expect(segments.length).toBeLessThan(12);
  });
});
