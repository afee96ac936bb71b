import { appendFile, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { readLinesBackward } from '../../../src/recorder/segment-files.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

async function segmentNames(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'calls'))).filter((name) => name.endsWith('.jsonl')).sort();
}

describe('files on disk', () => {
  it('keeps the calls folder 0700 and its segments 0600, as JSON lines', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    const record = makeRecord();
    await recorder.append(record);
    expect((await stat(join(dataDir, 'calls'))).mode & 0o777).toBe(0o700);
    const [name] = await segmentNames(dataDir);
    expect(name).toBe('calls-000001.jsonl');
    expect((await stat(join(dataDir, 'calls', name!))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dataDir, 'calls', name!), 'utf8')).toBe(`${JSON.stringify(record)}\n`);
  });

  it('skips a torn last line, and the next writer never glues onto it', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder({ dataDir });
    const records = [makeRecord(), makeRecord(), makeRecord()];
    for (const record of records) await first.append(record);
    await first.close();
    const segment = join(dataDir, 'calls', 'calls-000001.jsonl');
    const torn = JSON.stringify(makeRecord()).slice(0, 70);
    await appendFile(segment, torn);

    const store = createCallStore(dataDir);
    expect((await store.list()).map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    expect(await store.count()).toBe(3);

    const second = await useRecorder({ dataDir });
    expect(second.stats()).toMatchObject({ records: 3, failing: false });
    const after = makeRecord();
    await second.append(after);
    expect(await segmentNames(dataDir)).toEqual(['calls-000001.jsonl', 'calls-000002.jsonl']);
    expect((await readFile(segment, 'utf8')).endsWith(torn)).toBe(true);
    expect((await store.list()).map((r) => r.id)).toEqual([after, ...records.reverse()].map((r) => r.id));
    expect(await store.count()).toBe(4);
  });

  it('goes on in the last segment after a clean restart', async () => {
    const dataDir = await useDataDir();
    const first = await useRecorder({ dataDir });
    await first.append(makeRecord());
    await first.close();
    await first.close();
    await expect(first.append(makeRecord())).rejects.toMatchObject({ code: 'recorder_closed' });
    const second = await useRecorder({ dataDir });
    await second.append(makeRecord());
    expect(await segmentNames(dataDir)).toEqual(['calls-000001.jsonl']);
    expect(await createCallStore(dataDir).count()).toBe(2);
  });
});

describe('readLinesBackward', () => {
  it('yields every complete line from the last, for any chunk size, and skips a torn end', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    await recorder.append(makeRecord()); // creates the folder
    const path = join(dataDir, 'calls', 'lines.txt');
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '{', '"', ' '), minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 12 }), fc.option(line), fc.integer({ min: 1, max: 40 }), async (lines, tornEnd, chunk) => {
        await writeFile(path, lines.map((l) => `${l}\n`).join('') + (tornEnd ?? ''));
        const seen: string[] = [];
        for await (const bytes of readLinesBackward(path, chunk)) seen.push(bytes.toString('utf8'));
        expect(seen).toEqual([...lines].reverse());
      }),
      { numRuns: 150 },
    );
  });

  it('yields nothing for a file that is gone', async () => {
    const seen: Buffer[] = [];
    for await (const bytes of readLinesBackward(join(await useDataDir(), 'nope.jsonl'))) seen.push(bytes);
    expect(seen).toEqual([]);
  });
});
