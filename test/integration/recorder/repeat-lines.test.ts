import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repeatKeyOf } from '../../../src/median/index.js';
import { createCallStore } from '../../../src/recorder/index.js';
import { scanSegment } from '../../../src/recorder/segment-files.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

const connect = (n: number) =>
  makeRecord({
    n,
    tool: null,
    toolCallId: '',
    kind: 'connect',
    request: { method: 'GET', path: '/api/median', headers: {}, body: '' },
    response: null,
    error: { code: 'target_unreachable', message: 'The dev server is not answering.' },
    verdict: { kind: 'not-answering', agentSees: 'The tool request failed.', warnings: [] },
  });

async function segmentFile(dataDir: string): Promise<string> {
  const dir = join(dataDir, 'calls');
  const [name] = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
  return join(dir, name!);
}

describe('a repeated record: one record line, small repeat lines applied when read', () => {
  it('every reader sees the newest count and the last time; nothing is counted as skipped', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    const first = await recorder.append(connect(1));
    const other = await recorder.append(makeRecord({ n: 2 }));
    expect(await recorder.appendRepeat(first, { repeats: 2, lastAt: '2026-01-01T00:00:02.000Z' })).toMatchObject({ id: first.id, repeats: 2 });
    await recorder.appendRepeat(first, { repeats: 3, lastAt: '2026-01-01T00:00:05.000Z' });

    const lines = (await readFile(await segmentFile(dataDir), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[3]!)).toEqual({ repeatOf: first.id, repeats: 3, lastAt: '2026-01-01T00:00:05.000Z' });

    const store = createCallStore(dataDir);
    const expected = { ...first, repeats: 3, lastAt: '2026-01-01T00:00:05.000Z' };
    expect(await store.list()).toEqual([other, expected]);
    expect(await store.get(first.id)).toEqual(expected);
    expect(await store.findByToolCallId(first.id)).toEqual(expected);
    // A filter whose needle the repeat line lacks still gets the count.
    expect(await store.list({ text: 'not answering' })).toEqual([expected]);
    expect(store.skippedLines()).toBe(0);
    // Two records, however many repeat lines.
    expect(await store.count()).toBe(2);
  });

  it('counts repeat lines apart from records, also where one starts across the scan’s 1 MB reads', async () => {
    const dir = await useDataDir();
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'segment.jsonl');
    const repeat = '{"repeatOf":"rec_1","repeats":2,"lastAt":"2026-01-01T00:00:00.000Z"}\n';
    // The second line starts 5 bytes before the first read ends: its prefix straddles two reads.
    const first = `{"pad":"${'x'.repeat(1024 * 1024 - 5 - 10 - 1)}"}\n`;
    expect(first.length).toBe(1024 * 1024 - 5);
    await writeFile(file, first + repeat + '{"not":"a repeat"}\n' + repeat);
    expect(await scanSegment(file)).toMatchObject({ lines: 4, repeatLines: 2, endsCleanly: true });
  });

  it('a torn repeat line loses that count only; a repeat line for a record gone is ignored', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    const first = await recorder.append(connect(1));
    await recorder.appendRepeat(first, { repeats: 2, lastAt: '2026-01-01T00:00:02.000Z' });
    await recorder.close();
    const file = await segmentFile(dataDir);
    await appendFile(file, `{"repeatOf":"rec_gone","repeats":9,"lastAt":"2026-01-01T00:00:09.000Z"}\n{"repeatOf":"${first.id}","repe`);
    const store = createCallStore(dataDir);
    expect(await store.list()).toEqual([{ ...first, repeats: 2, lastAt: '2026-01-01T00:00:02.000Z' }]);
  });

  it('repeats are median-dev opening the route again with the same outcome: connects only, not replays, not other outcomes', () => {
    const base = connect(1);
    expect(repeatKeyOf(base)).toBe(repeatKeyOf(connect(2)));
    expect(repeatKeyOf(makeRecord({ n: 3 }))).toBeUndefined();
    expect(repeatKeyOf({ ...base, replayOf: 'rec_x' })).toBeUndefined();
    expect(repeatKeyOf({ ...base, response: { status: 500, headers: {}, body: '' } })).not.toBe(repeatKeyOf(base));
    expect(repeatKeyOf({ ...base, error: { code: 'target_timeout', message: '' } })).not.toBe(repeatKeyOf(base));
  });
});
