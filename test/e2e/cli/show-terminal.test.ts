// `show` typed in a real terminal (tmux), run as the installed bin runs it: its answer is written to the terminal
// with synchronous writes (src/platform/output-device.ts tells the terminal from fstat), so Node never makes its
// tty.WriteStream: node:tty loads net and Node's streams, compiled from source under the bin's V8 options. The
// terminal still gets what a terminal gets: the record with its colours.
import { writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useTmux } from '../../helpers/use-tmux.js';

const RECORD_BUILT_INS = fileURLToPath(new URL('../../helpers/record-built-ins.cjs', import.meta.url));
/** The modules a terminal's process.stdout (tty.WriteStream) brings; `show` must load none of them. */
const TERMINAL_STREAM = ['tty', 'net', 'stream'];

describe.runIf(process.platform !== 'win32')('show in a terminal', () => {
  it('prints the record in colour without making Node\'s terminal stream', async () => {
    const dir = await useTempDir('median-dev-show-terminal-');
    const dataDir = join(dir, 'data');
    const recorder = await openRecorder({ dataDir, secrets: [] });
    const record = await recorder.append(makeRecord({ n: 1 }));
    await recorder.close();

    const builtInsFile = join(dir, 'built-ins.txt');
    const raw = join(dir, 'raw.txt');
    const gate = join(dir, 'go');
    // The shell waits for the gate so the raw bytes are piped out of the pane before show writes any.
    const script = 'while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@"';
    const pane = await useTmux(
      ['env', '-u', 'NO_COLOR', 'sh', '-c', script, gate, process.execPath, ...binNodeArgs(BUNDLED_CLI_PATH), '--require', RECORD_BUILT_INS, BUNDLED_CLI_PATH, 'show', record.toolCallId, '--data-dir', dataDir, '--no-env-file'],
      { cwd: dir, env: { MEDIAN_DEV_TEST_BUILT_INS_FILE: builtInsFile, HOME: dir, TERM: 'xterm-256color' } },
    );
    await pane.pipeRaw(raw);
    await writeFile(gate, '');

    await vi.waitFor(() => expect(existsSync(builtInsFile)).toBe(true), { timeout: 15_000, interval: 50 });
    await vi.waitFor(async () => expect(await pane.text()).toContain(record.toolCallId), { timeout: 5_000, interval: 50 });
    const builtIns = readFileSync(builtInsFile, 'utf8').split('\n').flatMap((line) => (line.startsWith('NativeModule ') ? [line.slice('NativeModule '.length)] : []));
    expect(builtIns).toContain('fs'); // the list was read
    expect(builtIns.filter((name) => TERMINAL_STREAM.includes(name))).toEqual([]);
    // A terminal's output: styled (an SGR escape sequence), as with Node's own stream.
    await vi.waitFor(() => expect(readFileSync(raw, 'utf8')).toMatch(/\u001b\[[0-9;]*m/), { timeout: 5_000, interval: 50 });
  }, 30_000);
});
