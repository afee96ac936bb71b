import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** An SGR sequence whose parameters include 30: black text, invisible on a dark background. */
// eslint-disable-next-line no-control-regex
const BLACK_FG = /\u001b\[(?:\d+;)*30(?:;\d+)*m/;
/** Bright black (90) or a 256-colour grey: what grey should be. */
// eslint-disable-next-line no-control-regex
const GREY_FG = /\u001b\[(?:\d+;)*(?:90|38;5;(?:8|24[0-9]|25[0-5]))(?:;\d+)*m/;

/** The demo's TUI in a real tmux pane with the TERM tmux users have, its raw output captured. */
describe('grey under tmux', () => {
  it.each(['tmux-256color', 'screen-256color'])('TERM=%s: grey text is bright black, never ESC[30m', async (term) => {
    const dataDir = await useTempDir('median-dev-tui-colours-');
    const raw = join(dataDir, 'pane.raw');
    // The program waits for Enter, so the pipe is in place before it draws its first byte.
    const pane = await useTmux(['sh', '-c', 'read go; exec env "TERM=$0" "$@"', term, process.execPath, CLI_PATH, 'demo', '--data-dir', dataDir, '--inspector-port', '0'], {
      width: 160,
      height: 40,
      // The agent's pace is not what this test is about: its first call row comes in 0.3 s, not 2 s.
      env: { MEDIAN_DEV_DEMO_INTERVAL_MS: '300' },
    });
    await pane.pipeRaw(raw);
    await pane.sendKeys('Enter');
    // A call row: its clock column is grey. Failing, the dev server's output says why it did not come.
    const devLog = () => readFile(join(dataDir, 'dev-server.log'), 'utf8').catch(() => '(no dev-server.log)');
    await vi.waitFor(async () => expect(await pane.text(), await devLog()).toMatch(/\d\d:\d\d:\d\d \w+/), { timeout: 30_000, interval: 200 });
    const bytes = await readFile(raw, 'utf8');
    expect(bytes).toContain('\u001b[?1049h');
    expect(bytes).toMatch(GREY_FG);
    expect(bytes).not.toMatch(BLACK_FG);
    // blessed used to fail compiling screen-256color's terminfo and say so on the terminal.
    expect(bytes).not.toContain('Error on');
    await pane.sendKeys('q');
  }, 60_000);
});
