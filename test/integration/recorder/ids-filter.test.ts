import { appendFile, copyFile, lstat, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createCallStore, type CallStore } from '../../../src/recorder/index.js';
import { writeFilter } from '../../../src/recorder/ids-filter-writer.js';
import { makeRecord } from '../../helpers/make-record.js';
import { fillWithReplays } from './filled-store.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

// The ids filter beside each closed segment (src/recorder/ids-filter.ts): written by the recorder, used by lookups
// of a whole id to pass over the segments that cannot hold it, never trusted past the segment it was made for.

const callsDir = (dataDir: string): string => join(dataDir, 'calls');
const named = async (dataDir: string, suffix: string): Promise<string[]> => (await readdir(callsDir(dataDir))).filter((f) => f.endsWith(suffix)).sort();
const options = (dataDir: string) => ({ dataDir, segmentMaxRecords: 25, groupCommitMs: 0 });
const sizeOf = async (dataDir: string, name: string): Promise<number> => (await stat(join(callsDir(dataDir), name))).size;
/** Bytes of the largest index: what reading one segment's index reads at most. */
const largestIndex = async (dataDir: string): Promise<number> => Math.max(...(await Promise.all((await named(dataDir, '.idx')).map((name) => sizeOf(dataDir, name)))));
/**
 * What a lookup of a whole id reads with filters: the index of the closed segment holding it and the live one's
 * (which has no filter), each at most twice (for the id asked, then for the record id it follows there).
 */
const twoSegmentsTwice = async (dataDir: string): Promise<number> => 2 * ((await largestIndex(dataDir)) + (await sizeOf(dataDir, (await named(dataDir, '.idx')).at(-1)!)));

/** 12 closed segments of 25 records and a live one: an original (segment 1) with two replays and a repeat line (the live one). */
async function filledStore(dataDir: string) {
  const recorder = await useRecorder(options(dataDir));
  const filled = await fillWithReplays(recorder, { count: 300, originalAt: 10, repeats: 4 });
  await recorder.close(); // its close sees to the filters of the segments it closed
  return filled;
}

/** Every lookup by id a `show`, `replay` or the inspector makes, as answers to compare. */
async function answers(store: CallStore, ids: readonly string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const id of ids) {
    out.push(await store.findWithReplays(id).catch((error: { code?: string; details?: unknown }) => ({ code: error.code, details: error.details })));
    out.push(await store.findByToolCallId(id).catch((error: { code?: string }) => error.code));
    out.push(await store.get(id), await store.replaysOf(id));
  }
  return out;
}

describe('the ids filter: a lookup of a whole id reads only the indexes of segments that may name it', () => {
  it('is written for each closed segment as the recorder closes it, and not for the live one', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    for (let n = 1; n <= 26; n += 1) await recorder.append(makeRecord({ n }));
    // The 26th record opened segment 2: segment 1's filter follows in the background.
    await vi.waitFor(async () => expect(await named(dataDir, '.ids')).toEqual(['calls-000001.ids']), { timeout: 10_000, interval: 20 });
    expect(await named(dataDir, '.jsonl')).toEqual(['calls-000001.jsonl', 'calls-000002.jsonl']);
  });

  it('the writer makes the filter as it writes the segment, the same bytes as one made from its index', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    for (let n = 1; n <= 10; n += 1) await recorder.append(makeRecord({ n }));
    // The live segment's index taken away under the writer (which appends to its open file): only the writer's own filter can be written.
    await rm(join(callsDir(dataDir), 'calls-000001.idx'));
    for (let n = 11; n <= 60; n += 1) await recorder.append(makeRecord({ n }));
    await recorder.close();
    expect(await named(dataDir, '.ids')).toEqual(['calls-000001.ids', 'calls-000002.ids']);
    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(makeRecord({ n: 4 }).toolCallId)).toEqual(makeRecord({ n: 4 }));
    expect(await store.get(makeRecord({ n: 30 }).id)).toEqual(makeRecord({ n: 30 }));
    // Segment 2's, made as it was written, is the filter its index makes.
    const made = await readFile(join(callsDir(dataDir), 'calls-000002.ids'));
    await rm(join(callsDir(dataDir), 'calls-000002.ids'));
    expect(await writeFilter(join(callsDir(dataDir), 'calls-000002.jsonl'))).toBe(true);
    expect(await readFile(join(callsDir(dataDir), 'calls-000002.ids'))).toEqual(made);
  });

  it('answers as the indexes alone do, reading the indexes of the segments holding it where they read all', async () => {
    const dataDir = await useDataDir();
    const { records, original, repeated, replays } = await filledStore(dataDir);
    expect(await named(dataDir, '.ids')).toHaveLength(12);
    const ids = [original.toolCallId, original.id, replays[0]!.id, replays[1]!.toolCallId, records[0]!.toolCallId, records[150]!.id, records[299]!.toolCallId];
    const lookups = [...ids, 'call_0', 'call_nobody', 'rec_nobody', original.id.slice(0, -2)];

    const store = createCallStore(dataDir);
    const withFilters = await answers(store, lookups);
    // show <toolCallId> of the oldest call: its segment, and the live one (its replays and repeat line).
    expect(await store.findWithReplays(original.toolCallId)).toEqual({ record: repeated, replays });
    const oneOrTwo = await twoSegmentsTwice(dataDir);
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(oneOrTwo);
    expect(store.lastLookupLinesRead()).toBe(0);
    expect(await store.findWithReplays(records[150]!.id)).toEqual({ record: records[150], replays: [] });
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(oneOrTwo);
    expect(await store.get(records[0]!.id)).toEqual(records[0]);
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(oneOrTwo);
    // A prefix is text: every index is read, as before.
    await expect(store.findByToolCallId('call_0')).rejects.toMatchObject({ code: 'call_ambiguous', details: { total: 300 } });
    expect(store.lastLookupIndexBytesRead()).toBeGreaterThan(12 * (await largestIndex(dataDir)) * 0.9);

    // The same answers with no filter (a store from before them).
    for (const name of await named(dataDir, '.ids')) await rm(join(callsDir(dataDir), name));
    expect(await answers(createCallStore(dataDir), lookups)).toEqual(withFilters);
  });

  it('a filter not made for its segment as it is now is not used: a record appended to a closed segment by hand is found', async () => {
    const dataDir = await useDataDir();
    await filledStore(dataDir);
    const dir = callsDir(dataDir);
    // Segment 3 gets a record after its filter was written (an older median-dev's writer, a restore, a hand edit).
    const late = makeRecord({ n: 900, toolCallId: 'call_late_arrival' });
    await appendFile(join(dir, 'calls-000003.jsonl'), `${JSON.stringify(late)}\n`);
    // Segment 5's filter is segment 6's (copied over it): made for another file.
    await copyFile(join(dir, 'calls-000006.ids'), join(dir, 'calls-000005.ids'));
    // Segment 7's is junk.
    await writeFile(join(dir, 'calls-000007.ids'), 'not a filter\n');

    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId('call_late_arrival')).toEqual(late);
    expect(await store.get(late.id)).toEqual(late);
    const inFive = makeRecord({ n: 4 * 25 + 3 });
    expect(await store.findByToolCallId(inFive.toolCallId)).toEqual(inFive);
    expect(await store.findWithReplays(inFive.id)).toEqual({ record: inFive, replays: [] });
    const inSeven = makeRecord({ n: 6 * 25 + 3 });
    expect(await store.findByToolCallId(inSeven.toolCallId)).toEqual(inSeven);
  });

  it('a segment holding a line that is not a record gets none: a lookup still reports that line when it holds the id', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder(options(dataDir));
    for (let n = 1; n <= 30; n += 1) await first.append(makeRecord({ n }));
    await first.close();
    // A line that is no record, in the live segment 2 (a hand edit); the next writer indexes it as such and writes on.
    await appendFile(join(callsDir(dataDir), 'calls-000002.jsonl'), '{"not":"a record","toolCallId":"call_junk_line"}\n');
    const second = await useRecorder(options(dataDir));
    for (let n = 31; n <= 80; n += 1) await second.append(makeRecord({ n }));
    await second.close();
    expect(await named(dataDir, '.jsonl')).toEqual(['calls-000001.jsonl', 'calls-000002.jsonl', 'calls-000003.jsonl', 'calls-000004.jsonl']);
    expect(await named(dataDir, '.ids')).toEqual(['calls-000001.ids', 'calls-000003.ids']);
    expect(await readFile(join(callsDir(dataDir), 'calls-000002.idx'), 'utf8')).toContain('["x",');

    const store = createCallStore(dataDir);
    await expect(store.findByToolCallId('call_junk_line')).rejects.toMatchObject({ code: 'call_not_found' });
    expect(store.skippedLines()).toBe(1);
  });

  it('an index line longer than a read (a 100 KB toolCallId) still gets its ids into the filter', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder(options(dataDir));
    const long = makeRecord({ n: 3, toolCallId: `call_${'x'.repeat(100_000)}` });
    for (let n = 1; n <= 30; n += 1) await recorder.append(n === 3 ? long : makeRecord({ n }));
    await recorder.close();
    expect(await named(dataDir, '.ids')).toEqual(['calls-000001.ids']);
    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(long.toolCallId)).toEqual(long);
    expect(await store.findByToolCallId(makeRecord({ n: 20 }).toolCallId)).toEqual(makeRecord({ n: 20 }));
    // The segment's filter let the lookup pass over nothing it needed, and its index was read for the record.
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(await twoSegmentsTwice(dataDir));
  });

  it('a filter that is a link (to a shell rc file) is neither read nor written through: a file of its own replaces it', async () => {
    const dataDir = await useDataDir();
    const rc = join(dataDir, '..', 'home-bashrc');
    await writeFile(rc, '# the user rc\n', { mode: 0o644 });
    const recorder = await useRecorder(options(dataDir));
    await recorder.append(makeRecord({ n: 1 }));
    await symlink(rc, join(callsDir(dataDir), 'calls-000001.ids'));
    for (let n = 2; n <= 30; n += 1) await recorder.append(makeRecord({ n }));
    await recorder.close();

    expect(await readFile(rc, 'utf8')).toBe('# the user rc\n');
    expect((await stat(rc)).mode & 0o777).toBe(0o644);
    const filter = await lstat(join(callsDir(dataDir), 'calls-000001.ids'));
    expect(filter.isFile()).toBe(true);
    expect(filter.mode & 0o777).toBe(0o600);
    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(makeRecord({ n: 7 }).toolCallId)).toEqual(makeRecord({ n: 7 }));
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(await twoSegmentsTwice(dataDir));
  });

  it('the next writer writes the filters a store lacks, and retention deletes them with their segments', async () => {
    const dataDir = await useDataDir();
    const { records } = await filledStore(dataDir);
    for (const name of await named(dataDir, '.ids')) await rm(join(callsDir(dataDir), name));
    const recorder = await useRecorder({ ...options(dataDir), maxRecords: 150 });
    await recorder.append(makeRecord({ n: 500 }));
    const segments = async () => (await named(dataDir, '.jsonl')).map((f) => f.replace('.jsonl', ''));
    await vi.waitFor(async () => expect((await named(dataDir, '.ids')).map((f) => f.replace('.ids', ''))).toEqual((await segments()).slice(0, -1)), {
      timeout: 10_000,
      interval: 20,
    });
    expect((await segments()).length).toBeLessThan(12);
    const store = createCallStore(dataDir);
    expect(await store.findByToolCallId(records[299]!.toolCallId)).toEqual(records[299]);
    expect(store.lastLookupIndexBytesRead()).toBeLessThanOrEqual(await twoSegmentsTwice(dataDir));
  });
});

