import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { createCallStore } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

const T = Date.UTC(2026, 0, 5, 14, 0, 0);

/**
 * 60 calls a second apart, every seventh a slow one (up to 150 s, the
 * dev server's silence limit is 120 s), written by the real recorder in the
 * order they finished, as the proxy writes them; small segments, so slow
 * calls land in a later segment than the calls received around them.
 */
async function useFinishOrderStore(): Promise<{ dataDir: string; calls: CallRecord[] }> {
  const dataDir = await useDataDir();
  const recorder = await useRecorder({ dataDir, segmentMaxBytes: 8 * 1024 });
  const calls = Array.from({ length: 60 }, (_, i) =>
    makeRecord({ n: i + 1, tool: `t${i}`, receivedAt: new Date(T + i * 1_000).toISOString(), durationMs: i % 7 === 3 ? 20_000 + ((i * 37_000) % 130_000) : 15 }),
  );
  const finished = (r: CallRecord) => Date.parse(r.receivedAt) + (r.durationMs ?? 0);
  for (const record of [...calls].sort((a, b) => finished(a) - finished(b))) await recorder.append(record);
  return { dataDir, calls };
}

const byReceivedNewestFirst = (records: CallRecord[]) => [...records].sort((a, b) => Date.parse(b.receivedAt) - Date.parse(a.receivedAt));

describe("list's received order", () => {
  it('gives what a full sort by receivedAt gives, for every limit, across segments', async () => {
    const { dataDir, calls } = await useFinishOrderStore();
    expect((await readdir(join(dataDir, 'calls'))).filter((f) => f.endsWith('.jsonl')).length).toBeGreaterThan(3);
    const store = createCallStore(dataDir);
    const sorted = byReceivedNewestFirst(await store.list()).map((r) => r.id);
    expect(sorted).toEqual(byReceivedNewestFirst(calls).map((r) => r.id));
    for (let limit = 1; limit <= calls.length + 1; limit += 1) {
      expect((await store.list({ limit, order: 'received' })).map((r) => r.id), `limit ${limit}`).toEqual(sorted.slice(0, limit));
    }
  });

  it('stops reading once no older line can be among the limit', async () => {
    const { dataDir, calls } = await useFinishOrderStore();
    const looked: string[] = [];
    const store = createCallStore(dataDir);
    const newest = await store.list({ limit: 5, order: 'received', where: (r) => (looked.push(r.id), true) });
    expect(newest.map((r) => r.id)).toEqual(byReceivedNewestFirst(calls).slice(0, 5).map((r) => r.id));
    // The newest five came in during the last 5 s; the slowest call took 150 s, plus 5 s of write slack.
    expect(looked.length).toBeLessThan(calls.length / 2);
    expect(looked).not.toContain(calls[0]!.id);
  });
});
