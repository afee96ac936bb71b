import { describe, expect, it, vi } from 'vitest';
import { startTui } from '../../../src/tui/index.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty } from '../../helpers/terminal-streams.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** An SGR sequence whose parameters include 30 (black foreground): grey drawn as black. */
// eslint-disable-next-line no-control-regex
const BLACK_FG = /\u001b\[(?:\d+;)*30(?:;\d+)*m/;
// eslint-disable-next-line no-control-regex
const GREY_FG = /\u001b\[(?:\d+;)*(?:90|38;5;(?:8|24[0-9]|25[0-5]))(?:;\d+)*m/;

/** What the blessed screen writes for a call list, with this TERM. */
async function bytesFor(terminal: string): Promise<string> {
  const tty = fakeTty(100, 24);
  const tui = useTeardown(startTui({ input: tty.input, output: tty.output, terminal, onEffect: () => undefined }), (t) => t.close());
  tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord({ tool: 'lookup_order' })]) });
  // The clock column and the header's proxy URL are grey.
  await vi.waitFor(() => expect(tty.plain()).toContain('lookup_order'), { timeout: 5_000 });
  return tty.captured();
}

describe('grey text on terminals blessed cannot read the terminfo of', () => {
  it.each(['tmux-256color', 'screen-256color', 'xterm-256color'])('%s: grey is bright black, never black', async (terminal) => {
    const bytes = await bytesFor(terminal);
    expect(bytes).toMatch(GREY_FG);
    expect(bytes).not.toMatch(BLACK_FG);
  });

  it.each(['xterm', 'tmux', 'screen'])('%s (8 colours): grey is the default colour, never black', async (terminal) => {
    const bytes = await bytesFor(terminal);
    expect(bytes).not.toMatch(BLACK_FG);
  });
});
