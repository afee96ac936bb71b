import { createInterface } from 'node:readline/promises';
import type { CliIo } from './cli-io.js';

/** Asks the person at the terminal, one line at a time. */
export interface TerminalPrompt {
  /** Prints `question` on stderr and resolves with the line typed back (without its line end). */
  ask(question: string): Promise<string>;
  close(): void;
}

/**
 * A prompt on stderr, or undefined when stdin is no terminal (nobody to ask).
 *
 * readline runs with `terminal: false`: in a terminal's normal (cooked) mode
 * the terminal itself echoes and edits the line, so readline only writes the
 * question. As a line editor (`terminal: true`) it redraws the line with
 * cursor moves (`ESC[1G ESC[0J`), which stderr's output guard escapes as it
 * must (it lets no cursor movement through), and the prompt showed as
 * `\u001b[1G\u001b[0JRemove …`. The question itself still goes through the
 * guard: masked and with control characters escaped.
 */
export function createTerminalPrompt(io: Pick<CliIo, 'isInteractive' | 'stdin' | 'stderr'>): TerminalPrompt | undefined {
  if (!io.isInteractive) return undefined;
  const readline = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  return {
    ask: (question) => readline.question(question),
    close: () => readline.close(),
  };
}
