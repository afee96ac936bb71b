import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCallRecord } from '../../src/median/index.js';
import { createCallStore } from '../../src/recorder/index.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { makeRecord } from '../helpers/make-record.js';

/**
 * Break 7: one odd line in the store broke `calls` (`reading 'slice'`),
 * `show`, `--curl`, `export --har` and `watch`. Each line is validated as it
 * is read; what does not fit is skipped, counted, and said once.
 */
const good = makeRecord({});
const ODD_LINES = [
  '{"id":"rec_x","toolCallId":"call_x"}',
  JSON.stringify({ ...makeRecord({}), receivedAt: 12, tool: { evil: true } }),
  JSON.stringify({ ...makeRecord({}), request: { ...good.request, body: null } }),
  JSON.stringify({ ...makeRecord({}), verdict: { kind: 'answered', agentSees: 5, warnings: 'none' } }),
  JSON.stringify({ ...makeRecord({}), response: { status: '200', headers: {}, body: '' } }),
  '[1,2,3]',
  'null',
  'not json at all',
];

async function oddStore(): Promise<{ dir: string; dataDir: string }> {
  const dir = await useTempDir('median-dev-odd-');
  const dataDir = join(dir, '.median-dev');
  await mkdir(join(dataDir, 'calls'), { recursive: true });
  // The odd lines mention the good record's toolCallId too, so `show` reads them.
  const lines = [JSON.stringify(good), ...ODD_LINES.map((l) => l.replace('call_x', good.toolCallId))];
  await writeFile(join(dataDir, 'calls', 'calls-000001.jsonl'), `${lines.join('\n')}\n`);
  return { dir, dataDir };
}

describe('break 7: odd records', () => {
  it('isCallRecord accepts what the recorder writes and refuses each odd line', () => {
    expect(isCallRecord(good)).toBe(true);
    expect(isCallRecord({ ...good, verdict: { ...good.verdict, kind: 'a-kind-added-later' }, extra: 1 })).toBe(true);
    for (const line of ODD_LINES.slice(0, -1)) expect(isCallRecord(JSON.parse(line))).toBe(false);
  });

  it('the store skips and counts them, and lists the good one', async () => {
    const { dataDir } = await oddStore();
    const store = createCallStore(dataDir);
    expect((await store.list()).map((r) => r.id)).toEqual([good.id]);
    await store.list();
    expect(store.skippedLines()).toBe(ODD_LINES.length);
  });

  it.each([
    ['calls', ['calls']],
    ['calls --json', ['calls', '--json']],
    ['show', ['show', good.toolCallId]],
    ['show --curl', ['show', good.toolCallId, '--curl']],
    ['export --har -', ['export', '--har', '-']],
  ])('%s works, and says once that lines were skipped', async (_name, argv) => {
    const { dir, dataDir } = await oddStore();
    const run = await runCliInProcess([...argv, '--data-dir', dataDir], { cwd: dir, env: { MEDIAN_KEY: `median_key_${'a1B2c3D4'.repeat(4)}` } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(good.toolCallId.slice(0, 12));
    expect(run.stderr.match(/Skipped \d+ lines? in /g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/TypeError|\n\s+at /);
  });
});
