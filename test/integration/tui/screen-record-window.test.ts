import { describe, expect, it, vi } from 'vitest';
import { startTui, type TuiEffect } from '../../../src/tui/index.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty } from '../../helpers/terminal-streams.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const waitFor = <T>(check: () => T | Promise<T>): Promise<T> => vi.waitFor(check, { timeout: 5_000 });

describe('the record window on a real screen', () => {
  it('drops the oldest calls, says where they are, and keeps the selection and r working', async () => {
    const tty = fakeTty(100, 30);
    const effects: TuiEffect[] = [];
    const window = { maxRecords: 5, maxBodyChars: Number.MAX_SAFE_INTEGER };
    const tui = useTeardown(
      startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', recordWindow: window, onEffect: (e) => void effects.push(e) }),
      (t) => t.close(),
    );
    const first = Array.from({ length: 5 }, () => makeRecord());
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot(first) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain(first[4]?.toolCallId));
    expect(tui.screenText().join('\n')).not.toContain('older call');
    tty.input.write('G');
    await waitFor(() => expect(tui.state.selection).toBe(0));

    const later = Array.from({ length: 3 }, () => makeRecord({ tool: 'cancel_order' }));
    for (const record of later) tui.dispatch({ type: 'event', event: callEvent(record) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('3 older calls: median-dev calls'));
    const screen = tui.screenText().join('\n');
    expect(screen).toContain('8 calls');
    expect(screen).not.toContain(first[2]?.toolCallId);
    expect(screen).toContain(first[3]?.toolCallId);
    // The selected call dropped off: the oldest kept one is selected, and r replays it.
    tty.input.write('r');
    await waitFor(() => expect(effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: first[3]?.id } }]));
  });
});
