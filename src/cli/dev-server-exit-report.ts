import { stripTerminalCodes } from '../child/index.js';
import type { Daemon } from '../daemon/daemon-options.js';
import { childExitText } from '../events/index.js';
import { formatClock } from '../presentation/index.js';
import { safeLine } from '../shared/output-sanitiser.js';

/** The most of the dev server's last lines printed as the CLI ends (the snapshot keeps 200, the log all). */
export const EXIT_REPORT_LINES = 20;

/** The dev server's exit by itself: how and when. */
export interface DevServerExit {
  code: number | null;
  signal: string | null;
  at: string;
}

/**
 * The dev server's last exit by itself, unless it was started again since:
 * from the snapshot (it may have exited while the daemon started, before
 * anyone listened), then from the events.
 */
export function followDevServerExit(daemon: Pick<Daemon, 'snapshot' | 'events'>): { exit(): DevServerExit | undefined; stop(): void } {
  const { child } = daemon.snapshot();
  let exit: DevServerExit | undefined = child.state === 'exited' ? { code: child.code ?? null, signal: child.signal ?? null, at: child.at ?? new Date().toISOString() } : undefined;
  const stop = daemon.events.on((event) => {
    if (event.event !== 'child') return;
    if (event.state === 'exited') exit = { code: event.code ?? null, signal: event.signal ?? null, at: event.at };
    // Stopped by median-dev as it closes: the exit before it is still the last word.
    else if (event.state !== 'stopped') exit = undefined;
  });
  return { exit: () => exit, stop };
}

/**
 * What the CLI says on stderr as it ends when the dev server had exited
 * under the terminal UI, whose screen (and the lines it showed) is gone:
 * how and when, its last lines (colours dropped, controls escaped), and
 * where all of it is.
 */
export function devServerExitReport(exit: DevServerExit, output: readonly string[], logPath: string | undefined): string {
  const lines = output.slice(-EXIT_REPORT_LINES);
  const which = lines.length === 0 ? 'It printed nothing.' : lines.length < output.length ? `Its last ${lines.length} lines:` : 'Its output:';
  return [
    `median-dev: the dev server exited (${childExitText(exit)}) at ${formatClock(exit.at)} and was not started again. ${which}`,
    ...lines.map((line) => `  ${safeLine(stripTerminalCodes(line))}`),
    ...(logPath ? [`  All of its output: ${logPath}`] : []),
  ]
    .map((line) => `${line}\n`)
    .join('');
}
