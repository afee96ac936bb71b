import type { Daemon } from '../daemon/index.js';
import type { CliIo } from './cli-io.js';

/** Shows the terminal UI for an in-process daemon; returns a function that restores the terminal. */
export function attachDaemonTui(daemon: Daemon, io: CliIo, options: { isDemo: boolean; onQuit: () => void }): () => void {
  void [daemon, io, options];
  throw new Error('The terminal UI is not wired yet.');
}
