import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY, makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

/** The bytes of the data dir's one segment. */
function segmentBytes(dataDir: string): Buffer {
  const dir = join(dataDir, 'calls');
  const [name] = readdirSync(dir).filter((file) => file.endsWith('.jsonl'));
  return readFileSync(join(dir, name!));
}

describe('the bytes of a segment line', () => {
  it('writes a plain ASCII record as JSON.stringify writes it, then a newline', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, secrets: [KEY] });
    const record = makeRecord();
    await recorder.append(record);
    expect(segmentBytes(dataDir).equals(Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'))).toBe(true);
  });

  it('writes other text as UTF-8, with what a terminal acts on (DEL, C1 controls, bidi overrides) as JSON escapes', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, secrets: [KEY] });
    const record = makeRecord({ error: { code: 'x', message: 'café \u007f\u009b31m \u202egnp.exe' } });
    await recorder.append(record);
    const text = segmentBytes(dataDir).toString('utf8');
    expect(text).toContain('café \\u007f\\u009b31m \\u202egnp.exe');
    expect(text).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(text)).toEqual(record);
  });
});
