import { describe, expect, it, vi } from 'vitest';
import { startFailingTui } from '../../helpers/failing-tui.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty } from '../../helpers/terminal-streams.js';

/**
 * A terminal whose writes start failing once a frame shows a given text (a
 * real blessed screen on fake streams; the failing write copies what a
 * terminal gone away does to a synchronous writer). blessed writes each
 * frame on the next turn, outside every caller's try: the failure reaches
 * onFailed, never the process as an uncaught error, and blessed writes no
 * more after it (its late tear-down wiped what the owner said).
 */
describe('a screen that cannot draw at all', () => {
  it('stops the TUI, tells its owner once, and writes nothing more', async () => {
    const tty = fakeTty(100, 30);
    const write = tty.output.write.bind(tty.output);
    let isBroken = false;
    let writesAfter = 0;
    tty.output.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (isBroken || String(chunk).includes('wipe_ledger')) {
        isBroken = true;
        writesAfter += 1;
        throw new Error('EIO: the terminal went away');
      }
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof tty.output.write;
    const { tui, failures, uncaught } = startFailingTui(tty);
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord({ tool: 'lookup_order' })]) });
    await vi.waitFor(() => expect(tty.plain()).toContain('lookup_order'), { timeout: 5_000 });

    tui.dispatch({ type: 'event', event: callEvent(makeRecord({ tool: 'wipe_ledger' })) });
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: 5_000 });
    expect(String(failures[0])).toContain('EIO');
    const after = writesAfter;
    // Later events, keys and redraws are dropped: nothing is written, nothing throws.
    tui.dispatch({ type: 'event', event: callEvent(makeRecord({ tool: 'refund_order' })) });
    tty.input.write('j');
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(writesAfter).toBe(after);
    expect(failures).toHaveLength(1);
    expect(uncaught).toEqual([]);
  });
});
