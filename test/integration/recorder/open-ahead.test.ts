import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

const segmentsOf = (dataDir: string): string[] => readdirSync(join(dataDir, 'calls')).filter((name) => name.endsWith('.jsonl'));

/** Whether `append` resolves before the next turn of the event loop (written on the main thread). */
async function resolvesInItsTurn(append: Promise<unknown>): Promise<boolean> {
  let isNextTurn = false;
  setImmediate(() => (isNextTurn = true));
  await append;
  return !isNextTurn;
}

describe('opening the live segment ahead of the first call', () => {
  it('creates the first segment before any append, so the first append is written (and resolves) in its turn', async () => {
    const dataDir = await useDataDir();
    // A clock that never moves: the once-a-second check of the file at its path never comes due.
    const recorder = await useRecorder({ dataDir, clock: createManualClock() });
    expect(segmentsOf(dataDir)).toEqual([]);
    recorder.openAhead();
    await vi.waitFor(() => expect(segmentsOf(dataDir)).toHaveLength(1));
    await new Promise((resolve) => setImmediate(resolve)); // the open's last step (the folder's sync) is over
    const record = makeRecord();
    expect(await resolvesInItsTurn(recorder.append(record))).toBe(true);
    expect(segmentsOf(dataDir)).toHaveLength(1);
    expect((await createCallStore(dataDir).get(record.id))?.toolCallId).toBe(record.toolCallId);
  });

  it('without it, the first append waits for the segment to be made (not in its turn)', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, clock: createManualClock() });
    expect(await resolvesInItsTurn(recorder.append(makeRecord()))).toBe(false);
  });

  it('appends made while the segment opens wait for it and land in it, in order', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, clock: createManualClock() });
    recorder.openAhead();
    const records = [makeRecord(), makeRecord(), makeRecord()];
    await Promise.all(records.map((r) => recorder.append(r)));
    recorder.openAhead(); // open already: nothing more
    expect(segmentsOf(dataDir)).toHaveLength(1);
    const lines = readFileSync(join(dataDir, 'calls', segmentsOf(dataDir)[0]!), 'utf8').split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(records.map((r) => r.id));
  });
});
