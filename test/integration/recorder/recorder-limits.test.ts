import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/shared/index.js';
import { createCallStore } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

async function segmentNames(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'calls'))).filter((name) => name.endsWith('.jsonl')).sort();
}

function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const log = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('retention', () => {
  it('rotates segments and deletes the oldest whole ones past the record cap, never the live one', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, maxRecords: 25, segmentMaxRecords: 10 });
    const records = Array.from({ length: 57 }, () => makeRecord());
    for (const record of records.slice(0, 20)) await recorder.append(record);
    expect(await segmentNames(dataDir)).toEqual(['calls-000001.jsonl', 'calls-000002.jsonl']);
    const secondPath = join(dataDir, 'calls', 'calls-000002.jsonl');
    const [second, secondInode] = [await readFile(secondPath), (await stat(secondPath)).ino];
    for (const record of records.slice(20, 25)) await recorder.append(record);
    // A closed segment is never rewritten: same file, same bytes.
    expect(await readFile(secondPath)).toEqual(second);
    expect((await stat(secondPath)).ino).toBe(secondInode);

    for (const record of records.slice(25)) await recorder.append(record);
    // 57 records: segments 4, 5 (full) and 6 (live, 7 records) = 27 > 25 → segment 4 goes too.
    expect(await segmentNames(dataDir)).toEqual(['calls-000005.jsonl', 'calls-000006.jsonl']);
    const store = createCallStore(dataDir);
    const kept = await store.list();
    expect(kept.map((r) => r.id)).toEqual(records.slice(40).map((r) => r.id).reverse());
    expect(await store.count()).toBe(17);
    expect(recorder.stats().records).toBe(17);
  });

  it('keeps the byte total under its cap', async () => {
    const dataDir = await useDataDir();
    const size = Buffer.byteLength(`${JSON.stringify(makeRecord({ n: 100 }))}\n`);
    const recorder = await useRecorder({ dataDir, maxBytes: size * 7, segmentMaxBytes: size * 3 });
    for (let i = 0; i < 20; i += 1) await recorder.append(makeRecord({ n: 100 + i }));
    const { bytes, records } = recorder.stats();
    expect(bytes).toBeLessThanOrEqual(size * 7);
    expect(records).toBeGreaterThanOrEqual(4);
    expect(await createCallStore(dataDir).count()).toBe(records);
    for (const name of await segmentNames(dataDir)) {
      expect((await stat(join(dataDir, 'calls', name))).size).toBeLessThanOrEqual(size * 3);
    }
  });

  it('counts what an earlier run left and applies the caps on open', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder({ dataDir, segmentMaxRecords: 5 });
    for (let i = 0; i < 23; i += 1) await first.append(makeRecord());
    await first.close();
    const second = await useRecorder({ dataDir, maxRecords: 12, segmentMaxRecords: 5 });
    expect(second.stats().records).toBe(8);
    expect(await segmentNames(dataDir)).toEqual(['calls-000004.jsonl', 'calls-000005.jsonl']);
  });
});

describe('write failures', () => {
  it('rejects with record_write_failed when the calls folder is a file, without crashing, and recovers', async () => {
    const dataDir = await useDataDir();
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'calls'), 'not a folder');
    const logger = recordingLogger();
    const recorder = await useRecorder({ dataDir, logger });
    expect(recorder.stats().failing).toBe(true);
    const results = await Promise.allSettled([recorder.append(makeRecord()), recorder.append(makeRecord())]);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: 'record_write_failed' } });
    }
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);

    await rm(join(dataDir, 'calls'));
    const record = makeRecord();
    await expect(recorder.append(record)).resolves.toEqual(record);
    expect(recorder.stats()).toMatchObject({ records: 1, failing: false });
    expect(logger.lines.at(-1)?.level).toBe('info');
  });

  it('rejects when the data dir sits under a file', async () => {
    const base = await useDataDir();
    await mkdir(base, { recursive: true });
    await writeFile(join(base, 'plain-file'), '');
    const recorder = await useRecorder({ dataDir: join(base, 'plain-file', 'data') });
    await expect(recorder.append(makeRecord())).rejects.toMatchObject({ code: 'record_write_failed' });
    expect(recorder.stats().failing).toBe(true);
  });

  it('fails and recovers mid-run when a new segment cannot be created', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, segmentMaxRecords: 1 });
    await recorder.append(makeRecord());
    const calls = join(dataDir, 'calls');
    await rm(calls, { recursive: true });
    await writeFile(calls, 'in the way');
    await expect(recorder.append(makeRecord())).rejects.toMatchObject({ code: 'record_write_failed' });
    expect(recorder.stats().failing).toBe(true);
    await rm(calls);
    const record = makeRecord();
    await recorder.append(record);
    expect(recorder.stats().failing).toBe(false);
    expect((await createCallStore(dataDir).list()).map((r) => r.id)).toEqual([record.id]);
  });
});
