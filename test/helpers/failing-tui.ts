import { startTui, type Tui } from '../../src/tui/index.js';
import type { FakeTty } from './terminal-streams.js';
import { useTeardown } from './use-teardown.js';

/**
 * A real TUI on a fake terminal, for the tests of its crash boundary: what
 * reached its `onFailed`, and every error that escaped to the process
 * (collected while the test runs, so a containment that broke fails the
 * test rather than killing the worker).
 */
export function startFailingTui(tty: FakeTty): { tui: Tui; failures: unknown[]; uncaught: unknown[] } {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  useTeardown(onUncaught, (listener) => void process.off('uncaughtException', listener));
  const failures: unknown[] = [];
  const tui = useTeardown(
    startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: () => undefined, onFailed: (error) => failures.push(error) }),
    (t) => t.close(),
  );
  return { tui, failures, uncaught };
}
