import { safeJson } from '../shared/output-sanitiser.js';
import type { Writable, Readable } from 'node:stream';
import type { Clock } from '../shared/clock.js';

/** Everything a command may touch of the outside world, passed in by main.ts. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** stdout is a terminal (TUI, colours, prompts). */
  isTTY: boolean;
  /** stdin is a terminal (prompts). */
  isInteractive: boolean;
  /**
   * Subscribes to SIGINT/SIGTERM for long-running commands; returns an
   * unsubscribe function. Only main.ts installs real signal handlers.
   */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** Runs `handler` (synchronously) if the process is about to die of an uncaught error: a daemon stops its dev server there. */
  onCrash?(handler: () => void): () => void;
  /** This process's id (written to control.json). */
  pid: number;
  /** Ends the process at once (a second Ctrl-C). Only main.ts really exits. */
  exit(code: number): void;
  /**
   * The unguarded stdout, for the full-screen terminal UI only: it draws with
   * escape sequences and escapes what it shows itself. Set by runCli.
   */
  terminal?: Writable;
  /** More secrets to mask in everything stdout and stderr get (a command's resolved config). Set by runCli. */
  addSecrets?(secrets: ReadonlyArray<string | undefined>): void;
  /** The clock a command's waits run on (Median's 8 s diagnostics wait); left out, real time. Tests pass one they drive. */
  clock?: Clock;
}

export function useColor(io: CliIo): boolean {
  return io.isTTY && io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb';
}

export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}

/** JSON output: exact JSON, with every character a terminal could act on escaped (`safeJson`). */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${safeJson(value, 2)}\n`);
}
