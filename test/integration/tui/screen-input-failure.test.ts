import { describe, expect, it, vi } from 'vitest';
import { startFailingTui } from '../../helpers/failing-tui.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty, type FakeTty } from '../../helpers/terminal-streams.js';

/**
 * blessed parses what the terminal sends in listeners on the input stream
 * (its key parser, its `data` handlers) and redraws on the output's
 * `resize`, all outside any caller's try: on a real TTY an error thrown
 * there is uncaught and takes the daemon the TUI runs in with it. Each case
 * adds, on a real blessed screen's fake streams, a listener that throws
 * once where blessed's own do (the same streams and events a real TTY
 * drives), then sends what reaches it.
 */
const cases: Array<{ name: string; arm(tty: FakeTty, boom: () => void): void; provoke(tty: FakeTty): void }> = [
  {
    name: 'a key the parser chokes on',
    arm: (tty, boom) => tty.input.on('keypress', (ch: unknown) => ch === 'x' && boom()),
    provoke: (tty) => tty.input.write('x'),
  },
  {
    name: 'a data handler that throws',
    arm: (tty, boom) => tty.input.on('data', (chunk: Buffer) => chunk.toString().includes('\u001b[<0;5;5M') && boom()),
    provoke: (tty) => tty.input.write('\u001b[<0;5;5M'),
  },
  {
    name: 'a resize handler that throws',
    arm: (tty, boom) => tty.output.on('resize', boom),
    provoke: (tty) => {
      tty.output.columns = 90;
      tty.output.emit('resize');
    },
  },
];

describe('an error while the screen takes input or a resize', () => {
  for (const { name, arm, provoke } of cases) {
    it(`${name}: stops the TUI only and tells its owner once`, async () => {
      const tty = fakeTty(100, 30);
      const { tui, failures, uncaught } = startFailingTui(tty);
      tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord({ tool: 'lookup_order' })]) });
      await vi.waitFor(() => expect(tty.plain()).toContain('lookup_order'), { timeout: 5_000 });

      let hasThrown = false;
      arm(tty, () => {
        if (hasThrown) return;
        hasThrown = true;
        throw new Error('blessed broke on this input');
      });
      let thrownToSender: unknown;
      try {
        provoke(tty);
      } catch (error) {
        thrownToSender = error;
      }
      await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: 5_000 });
      expect(String(failures[0])).toContain('blessed broke on this input');
      expect(thrownToSender).toBeUndefined();
      // The TUI has stopped: keys and events are dropped, nothing throws, the owner is told once.
      tty.input.write('j');
      tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([]) });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(failures).toHaveLength(1);
      expect(uncaught).toEqual([]);
      // blessed has let go of the streams: no listener of its is left on them.
      expect(tty.input.listenerCount('keypress')).toBeLessThanOrEqual(1);
      expect(tty.output.listenerCount('resize')).toBeLessThanOrEqual(1);
    });
  }
});
