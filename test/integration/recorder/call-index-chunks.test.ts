import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { createCallStore, type CallStore } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { fillWithReplays } from './filled-store.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

/**
 * The call index is read a chunk (64 KiB) at a time and searched chunk by
 * chunk (src/recorder/call-index-reader.ts): every line, wherever it falls
 * against a chunk's end, one longer than a chunk, and `findWithReplays`
 * giving what `findByToolCallId` and `replaysOf` give.
 */
const indexFiles = async (dataDir: string): Promise<string[]> => (await readdir(join(dataDir, 'calls'))).filter((f) => f.endsWith('.idx'));

/** What show needs, by the two separate lookups. */
async function separately(store: CallStore, id: string): Promise<{ record: CallRecord; replays: CallRecord[] }> {
  const record = await store.findByToolCallId(id);
  return { record, replays: await store.replaysOf(record.id) };
}

describe('the call index read in chunks', () => {
  it('finds every record of an index many chunks long, and a line longer than a chunk, reading no segment line', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, segmentMaxRecords: 5000, groupCommitMs: 0 });
    const records: CallRecord[] = [];
    for (let n = 1; n <= 1500; n += 1) records.push(await recorder.append(makeRecord({ n })));
    // An index line of about 150 KiB (its toolCallId), the last of the segment: read past two chunks and from the end.
    records.push(await recorder.append(makeRecord({ n: 1501, toolCallId: `call_${'7'.repeat(150_000)}` })));
    const [index] = await indexFiles(dataDir);
    expect((await readFile(join(dataDir, 'calls', index!))).length).toBeGreaterThan(3 * 64 * 1024);

    const store = createCallStore(dataDir);
    // Every line is found once, wherever it falls against a chunk's end: a prefix all but the long one share.
    await expect(store.findByToolCallId('call_0')).rejects.toMatchObject({ code: 'call_ambiguous', details: { total: 1500 } });
    for (const record of records.filter((_, i) => i % 23 === 0 || i >= records.length - 5)) {
      expect(await store.findByToolCallId(record.toolCallId)).toEqual(record);
      expect(await store.findByToolCallId(record.id)).toEqual(record);
    }
    expect(store.lastLookupLinesRead()).toBe(0);
  });

  it('findWithReplays gives what findByToolCallId then replaysOf give, through the index and without it', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, segmentMaxRecords: 25, groupCommitMs: 0 });
    const { records, original, repeated, replays } = await fillWithReplays(recorder, { count: 120, originalAt: 3, repeats: 3 });

    const ids = [original.toolCallId, original.id, replays[1]!.id, 'call_new_id_replay', records[119]!.toolCallId];
    const expectations = async (store: CallStore): Promise<void> => {
      for (const id of ids) expect(await store.findWithReplays(id)).toEqual(await separately(store, id));
      expect(await store.findWithReplays(original.toolCallId)).toEqual({ record: repeated, replays });
      await expect(store.findWithReplays('call_nobody')).rejects.toMatchObject({ code: 'call_not_found' });
      await expect(store.findWithReplays(' ')).rejects.toMatchObject({ code: 'call_not_found' });
      await expect(store.findWithReplays('call_0')).rejects.toMatchObject({ code: 'call_ambiguous', details: { total: 120 } });
    };
    const store = createCallStore(dataDir);
    await expectations(store);
    expect(store.lastLookupLinesRead()).toBe(0);

    // Every index lying (its entries shifted by a byte): each hit fails its check, the lookups scan the segments.
    for (const file of await indexFiles(dataDir)) {
      const path = join(dataDir, 'calls', file);
      const [header, ...lines] = (await readFile(path, 'utf8')).split('\n');
      await writeFile(path, [header, ...lines.map((line) => line.replace(/^\["([crx])",(\d+),/, (_, kind: string, offset: string) => `["${kind}",${Number(offset) + 1},`))].join('\n'));
    }
    const lied = createCallStore(dataDir);
    await expectations(lied);
    expect(lied.lastLookupLinesRead()).toBeGreaterThan(0);
  });
});
