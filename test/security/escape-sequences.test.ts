import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../src/recorder/index.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { makeRecord } from '../helpers/make-record.js';

/**
 * Break 2: escape sequences sent by anyone on the internet reached the
 * developer's terminal through `calls`, `show` and the `--no-tui` log.
 * The tool name and toolCallId below are the ones of the report.
 */
export const EVIL_TOOL = '\u001b]0;PWNED\u0007\u001b[2J\u001b[31mevil';
export const EVIL_ID = 'call_x\u001b[8m';
/** Any control character a terminal acts on; `\n` and `\t` (layout) are allowed. */
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

async function storeWithEvilCall(): Promise<string> {
  const dir = await useTempDir('median-dev-escapes-');
  const dataDir = join(dir, '.median-dev');
  const body = JSON.stringify({ tool: EVIL_TOOL, toolCallId: EVIL_ID, input: { note: '\u009b31mC1 CSI\r overwritten' } });
  const record = makeRecord({
    tool: EVIL_TOOL,
    toolCallId: EVIL_ID,
    request: { method: 'POST', path: '/api/median', headers: { 'x-evil': '\u001b[2J' }, body },
    response: { status: 200, headers: {}, body: 'plain \u001b[5mblink\u001b[0m text\nsecond line' },
  });
  await mkdir(join(dataDir, 'calls'), { recursive: true });
  await writeFile(join(dataDir, 'calls', 'calls-000001.jsonl'), `${JSON.stringify(record)}\n`);
  expect((await createCallStore(dataDir).list()).map((r) => r.toolCallId)).toEqual([EVIL_ID]);
  return dir;
}

describe('break 2: recorded text reaches no terminal raw', () => {
  it.each([
    ['calls', ['calls']],
    ['calls --json', ['calls', '--json']],
    ['show', ['show', EVIL_ID]],
    ['show --json', ['show', EVIL_ID, '--json']],
    ['show --curl', ['show', EVIL_ID, '--curl']],
  ])('%s prints no raw control character', async (_name, argv) => {
    const dir = await storeWithEvilCall();
    const run = await runCliInProcess([...argv, '--data-dir', join(dir, '.median-dev')], {
      cwd: dir,
      env: { MEDIAN_KEY: `median_key_${'a1B2c3D4'.repeat(4)}` },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toMatch(/\\u001b|\\0033|evil/);
    if (argv.includes('--json')) {
      const parsed = JSON.parse(run.stdout) as unknown;
      const record = (Array.isArray(parsed) ? parsed[0] : parsed) as { tool: string; toolCallId: string };
      expect(record).toMatchObject({ tool: EVIL_TOOL, toolCallId: EVIL_ID }); // exact JSON: the same value reads back
    }
  });

  it('with colours on (a terminal), the table keeps its own colours and nothing else', async () => {
    const dir = await storeWithEvilCall();
    const run = await runCliInProcess(['calls', '--data-dir', join(dir, '.median-dev')], { cwd: dir, isTTY: true });
    expect(run.code).toBe(0);
    const withoutOwnColours = run.stdout.replace(/\u001b\[(?:0|1|2|22|31|32|33|35|36|39)?m/g, '');
    expect(withoutOwnColours).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain('\u001b[1mTIME'); // its own bold header is still there
    expect(run.stdout).toContain('\\u001b[31mevil'); // the request's red is shown, not obeyed
  });
});

describe('break 2: the --no-tui log and --json events', () => {
  it('write a hostile call event on one line, controls escaped, and JSON that reads back exactly', async () => {
    const { eventToJsonLine, eventToLogLine } = await import('../../src/cli/format-event.js');
    const { createStyle } = await import('../../src/cli/terminal-style.js');
    const event = {
      event: 'call' as const,
      at: new Date().toISOString(),
      id: 'rec_1',
      toolCallId: `${EVIL_ID}\nFAKE LINE`,
      tool: EVIL_TOOL,
      kind: 'tool-call' as const,
      status: 200,
      verdict: 'answered' as const,
      signature: 'valid' as const,
      durationMs: 3,
      replayOf: null,
    };
    for (const colours of [false, true]) {
      const line = eventToLogLine(event as never, createStyle(colours))!;
      expect(line.replace(/\u001b\[(?:0|1|2|22|31|32|33|35|36|39)?m/g, '')).not.toMatch(RAW_CONTROL);
      expect(line).not.toContain('\n');
    }
    const output = eventToLogLine({ event: 'output', at: event.at, stream: 'stdout', line: `dev \u001b]0;t\u0007 \u009b2J` } as never, createStyle(false))!;
    expect(output).not.toMatch(RAW_CONTROL);
    const json = eventToJsonLine(event as never);
    expect(json).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json)).toMatchObject({ tool: EVIL_TOOL, toolCallId: `${EVIL_ID}\nFAKE LINE` });
  });
});
