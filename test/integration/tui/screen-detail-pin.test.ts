import { describe, expect, it, vi } from 'vitest';
import { startTui, type TuiEffect } from '../../../src/tui/index.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty } from '../../helpers/terminal-streams.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const waitFor = <T>(check: () => T | Promise<T>): Promise<T> => vi.waitFor(check, { timeout: 5_000 });

describe('the open detail on a real screen', () => {
  it('keeps showing the call being read while newer ones arrive, and r replays that one', async () => {
    const tty = fakeTty(100, 30);
    const effects: TuiEffect[] = [];
    const tui = useTeardown(startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: (e) => void effects.push(e) }), (t) => t.close());
    const read = makeRecord({ tool: 'lookup_order' });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([read]) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('lookup_order'));
    tty.input.write('\r');
    await waitFor(() => expect(tui.state.focus).toBe('detail'));
    const newer = makeRecord({ tool: 'cancel_order' });
    tui.dispatch({ type: 'event', event: callEvent(newer) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('cancel_order'));
    const detail = tui.screenText().slice(13).join('\n');
    expect(detail).toContain(`lookup_order  ${read.toolCallId}`);
    expect(detail).not.toContain(newer.toolCallId);
    tty.input.write('r');
    await waitFor(() => expect(effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: read.id } }]));
    tty.input.write('\u001b');
    await waitFor(() => expect(tui.screenText().join('\n')).toContain(`cancel_order  ${newer.toolCallId}`));
    expect(tui.screenText().join('\n')).toContain('following newest');
  });
});
