import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openRawRecordWriter } from '../../../bench/raw-record-writer.js';

describe('the proxy bench floor: records written raw', () => {
  it('appends each record as one JSON line, resolving once the turn\'s lines are written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'raw-writer-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const writer = openRawRecordWriter(join(dir, 'calls.jsonl'));
    onTestFinished(() => writer.close());
    await Promise.all([writer.append({ id: 'rec_1' }), writer.append({ id: 'rec_2', body: 'é\n' })]);
    // Both were written by the time they resolved, in order.
    expect((await readFile(join(dir, 'calls.jsonl'), 'utf8')).split('\n')).toEqual(['{"id":"rec_1"}', '{"id":"rec_2","body":"é\\n"}', '']);
    await writer.append({ id: 'rec_3' });
    expect((await readFile(join(dir, 'calls.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(['rec_1', 'rec_2', 'rec_3']);
    writer.close();
    writer.close(); // idempotent
  });
});
