import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { createCallStore } from '../../../src/recorder/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir, useRecorder } from '../recorder/use-data-dir.js';

const T = Date.UTC(2026, 0, 5, 14, 2, 0);
const at = (ms: number) => new Date(T + ms).toISOString();

/**
 * The recorder writes a call when it finishes: a slow call that came in
 * first is written after the quick ones behind it. The lines are written in
 * that (finish) order here, by the real recorder.
 */
async function useFinishOrderStore() {
  const dataDir = await useDataDir();
  const recorder = await useRecorder({ dataDir });
  const old = [1, 2, 3].map((n) => makeRecord({ n, tool: 'oldCall', receivedAt: at(-600_000 + n * 1000) }));
  const slow = makeRecord({ n: 10, tool: 'slowReport', receivedAt: at(0), durationMs: 3_000 });
  const quick = makeRecord({ n: 11, tool: 'orderStatus', receivedAt: at(500), durationMs: 20 });
  const later = makeRecord({ n: 12, tool: 'lookupCustomer', receivedAt: at(1_000), durationMs: 20 });
  for (const record of [...old, quick, later, slow]) await recorder.append(record);
  const calls = async (args: string[]) => {
    const result = await runCliInProcess(['calls', '--json', '--data-dir', dataDir, '--no-env-file', ...args]);
    expect(result.code).toBe(0);
    return (JSON.parse(result.stdout) as CallRecord[]).map((r) => r.tool);
  };
  return { dataDir, calls, slow, quick, later };
}

describe('calls lists in the order the calls came in', () => {
  it('newest received first, a slow call where it arrived, not where it finished', async () => {
    const { calls } = await useFinishOrderStore();
    expect(await calls([])).toEqual(['lookupCustomer', 'orderStatus', 'slowReport', 'oldCall', 'oldCall', 'oldCall']);
  });

  it('--limit keeps the newest received, even one written before a slower call', async () => {
    const { calls } = await useFinishOrderStore();
    expect(await calls(['--limit', '2'])).toEqual(['lookupCustomer', 'orderStatus']);
    expect(await calls(['--limit', '3'])).toEqual(['lookupCustomer', 'orderStatus', 'slowReport']);
    expect(await calls(['--limit', '1', 'tool:slow'])).toEqual(['slowReport']);
  });

  it('the store reads no further than it must once the limit is full', async () => {
    const { dataDir } = await useFinishOrderStore();
    const seen: string[] = [];
    const records = await createCallStore(dataDir).list({ limit: 2, order: 'received', where: (r) => (seen.push(r.tool ?? ''), true) });
    expect(records.map((r) => r.tool)).toEqual(['lookupCustomer', 'orderStatus']);
    // The old calls finished ten minutes before: they are never looked at.
    expect(seen).not.toContain('oldCall');
  });
});

describe('calls -f', () => {
  it('prints its rows in the terminal UI’s fixed columns, aligned under the titles', async () => {
    const dataDir = await useDataDir();
    const recorder = await useRecorder({ dataDir });
    await recorder.append(makeRecord({ n: 1, tool: 'orderStatus', durationMs: 5 }));
    const follower = spawnCli(['calls', '-f', '--data-dir', dataDir, '--no-env-file']);
    await vi.waitFor(() => expect(follower.stdout()).toContain('orderStatus'), { timeout: 10_000 });
    await recorder.append(makeRecord({ n: 2, tool: 'a', durationMs: 12_345, response: { status: 500, headers: {}, body: 'boom' }, verdict: { kind: 'not-answering', agentSees: '', warnings: [] } }));
    await recorder.append(makeRecord({ n: 3, tool: 'lookupCustomerByEmailAddress', signature: 'invalid_signature', response: null, verdict: { kind: 'not-answering', agentSees: '', warnings: [] } }));
    await vi.waitFor(() => expect(follower.stdout()).toContain('lookupCustomerByEmailAddress'), { timeout: 10_000 });
    expect(await follower.stop('SIGINT')).toBe(0);

    const [titles, ...rows] = follower.stdout().trimEnd().split('\n');
    expect(rows).toHaveLength(3);
    const column = (name: string) => titles!.indexOf(name);
    for (const row of rows) {
      expect(row.slice(column('HTTP')).split(' ')[0]).toMatch(/^(200|500|—)$/);
      expect(row.slice(column('VERDICT')).split(' ')[0]).toMatch(/^(answered|not-answering)$/);
      expect(row.slice(column('CALL ID')).split(' ')[0]).toMatch(/^call_[0-9a-f]{32}$/);
      expect(row[column('✓')]).toMatch(/[✓✗·]/);
    }
  });
});
