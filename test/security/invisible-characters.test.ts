import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startTui } from '../../src/tui/index.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { makeRecord } from '../helpers/make-record.js';
import { callEvent, makeSnapshot } from '../helpers/record-fixtures.js';
import { fakeTty } from '../helpers/terminal-streams.js';
import { useHttpServer } from '../helpers/use-http-server.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * Issue 18 item 16: invisible and bidi characters (U+061C, U+200B, U+2060,
 * U+FEFF, tag characters) printed raw in `calls` and `show`, and a hostile
 * Median API split the key with U+200B: the masker saw no key, so what
 * followed the split printed in clear, and looked whole on the terminal.
 * The hostile API is a real HTTP server; the records are in a real store.
 */
const KEY = `median_key_${'Zq7Wx2Lp9Rt4Vn6Kb3'.repeat(2)}`;
const HIDING = ['\u061c', '\u200b', '\u2060', '\ufeff', '\u{e0041}', '\u{e007f}', '\u202e', '\u2066', '\u00ad', '\u180e', '\u3164'];
/** Any of them raw (and the other bidi and zero-width characters): none may reach a terminal. */
const RAW_HIDING = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\u3164\ufeff]|[\u{e0000}-\u{e0fff}]/u;
/** The key split after 15 characters, the way the hostile API sends it. */
const SPLIT_KEY = `${KEY.slice(0, 15)}\u200b${KEY.slice(15)}`;
const EVIL_TOOL = `refund${HIDING.join('')}Order`;

/** Whether any 8 characters of the key's secret part (all but the last four, which a mask keeps) show, hidden characters and their escapes taken out. */
function showsKey(output: string): boolean {
  const plain = output.replace(/\\u[0-9a-f]{4}/gi, '').replace(new RegExp(RAW_HIDING.source, 'gu'), '');
  const body = KEY.slice('median_key_'.length, -4);
  for (let i = 0; i + 8 <= body.length; i++) if (plain.includes(body.slice(i, i + 8))) return true;
  return false;
}

async function hostileMedianApi(): Promise<string> {
  const endpoint = (id: string, url: string) => ({ id, url, status: 'failed', error: `The tool name "${EVIL_TOOL}" clashes. ${SPLIT_KEY}`, tools: [{ name: EVIL_TOOL, enabled: true }], createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null });
  const api = await useHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // A real Median API answers the list; this one hides the caller's key in it, split by U+200B.
    res.end(JSON.stringify({ endpoints: [endpoint('tep_1', `https://evil.example/${SPLIT_KEY}/api/median`), endpoint('tep_\u200b2', `https://a\u202etxt.example/api/median`)] }));
  });
  return api.url;
}

async function storeWithHidingCall(): Promise<{ dir: string; dataDir: string }> {
  const dir = await useTempDir('median-dev-invisible-');
  const dataDir = join(dir, '.median-dev');
  const input = { note: `pay ${SPLIT_KEY} now`, name: `Ada${HIDING.join('')}` };
  const body = JSON.stringify({ tool: EVIL_TOOL, toolCallId: 'call_hiding', input });
  const record = makeRecord({
    tool: EVIL_TOOL,
    toolCallId: 'call_hiding',
    request: { method: 'POST', path: '/api/median', headers: { 'x-note': `k=${SPLIT_KEY}` }, body },
    response: { status: 200, headers: {}, body: JSON.stringify({ result: { echoed: SPLIT_KEY, text: `a\u200bb\u2060c` } }) },
  });
  await mkdir(join(dataDir, 'calls'), { recursive: true });
  await writeFile(join(dataDir, 'calls', 'calls-000001.jsonl'), `${JSON.stringify(record)}\n`);
  return { dir, dataDir };
}

describe('invisible and bidi characters reach no terminal raw, and split no key open', () => {
  it.each([['endpoints'], ['endpoints --json']])('%s from a hostile Median API', async (command) => {
    const dir = await useTempDir('median-dev-invisible-api-');
    const run = await runCliInProcess([...command.split(' '), '--data-dir', join(dir, '.median-dev'), '--median-api', await hostileMedianApi()], {
      cwd: dir,
      env: { MEDIAN_KEY: KEY },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('evil.example');
    expect(run.stdout + run.stderr).not.toMatch(RAW_HIDING);
    expect(showsKey(run.stdout + run.stderr), run.stdout + run.stderr).toBe(false);
    if (command.endsWith('--json')) expect(JSON.stringify(JSON.parse(run.stdout))).toContain(`refund${HIDING.join('')}Order`);
    else expect(run.stdout).toContain('\\u200b');
  });

  it.each([['calls'], ['calls --json'], ['show call_hiding'], ['show call_hiding --json'], ['show call_hiding --curl']])('%s of a recorded call', async (command) => {
    const { dir, dataDir } = await storeWithHidingCall();
    const run = await runCliInProcess([...command.split(' '), '--data-dir', dataDir], { cwd: dir, env: { MEDIAN_KEY: KEY } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(RAW_HIDING);
    expect(showsKey(run.stdout + run.stderr), run.stdout + run.stderr).toBe(false);
    expect(run.stdout).toMatch(/refund|call_hiding/);
  });

  it('the TUI draws them as U+FFFD, not raw', async () => {
    const tty = fakeTty(160, 30);
    const tui = useTeardown(startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: () => undefined }), (t) => t.close());
    const record = makeRecord({ tool: EVIL_TOOL, toolCallId: `call_${HIDING.join('')}x` });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([]) });
    tui.dispatch({ type: 'event', event: callEvent(record) });
    await vi.waitFor(() => expect(tty.plain()).toContain('refund'), { timeout: 5_000 });
    expect(tty.captured()).not.toMatch(RAW_HIDING);
    expect(tty.plain()).toContain('\ufffd');
  });
});
