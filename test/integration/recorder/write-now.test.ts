import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

/** The lines in the data dir's segments now. */
function segmentLines(dataDir: string): string[] {
  const dir = join(dataDir, 'calls');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean));
}

/** Resolves in a fresh turn of the event loop (as the proxy's record batch runs). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('default durability: appends written in the turn they are made', () => {
  it('writes the appends of one turn together and resolves them in that turn', async () => {
    const dataDir = await useDataDir();
    // A clock that never moves: the once-a-second check of the file at its path never comes due.
    const recorder = await useRecorder({ dataDir, clock: createManualClock() });
    await recorder.append(makeRecord()); // opens the segment
    for (let round = 0; round < 20; round += 1) {
      await nextTurn();
      const before = segmentLines(dataDir).length;
      const records = Array.from({ length: 5 }, () => makeRecord());
      const events: string[] = [];
      const appends = records.map((record, i) =>
        recorder.append(record).then(() => {
          // When the first resolves, every append of the turn is in the file: one write took them.
          if (i === 0) events.push(`first resolved with ${segmentLines(dataDir).length - before} lines written`);
        }),
      );
      const all = Promise.all(appends).then(() => events.push('all resolved'));
      setImmediate(() => events.push('next turn'));
      await all;
      await nextTurn();
      expect(events).toEqual(['first resolved with 5 lines written', 'all resolved', 'next turn']);
    }
    expect((await createCallStore(dataDir).list({ limit: 1_000 })).length).toBe(101);
  });

  it('keeps the call index whole for records written in the turn', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir, clock: createManualClock(), segmentMaxRecords: 7 });
    const records = Array.from({ length: 30 }, () => makeRecord());
    // In turns of 4: some batches fill a segment, and the rest of them starts the next.
    for (let i = 0; i < records.length; i += 4) {
      await nextTurn();
      await Promise.all(records.slice(i, i + 4).map((record) => recorder.append(record)));
    }
    const store = createCallStore(dataDir);
    for (const record of records) {
      expect((await store.get(record.id))?.toolCallId).toBe(record.toolCallId);
      // Found through the index: no segment line read.
      expect(store.lastLookupLinesRead()).toBe(0);
    }
    expect(segmentLines(dataDir)).toHaveLength(30);
  });
});
