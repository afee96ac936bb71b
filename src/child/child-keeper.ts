import { startChildProcess, type ChildRunner } from './child-runner.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { forgetChild, noteChild } from './orphan-child.js';
import type { NewDaemonEvent } from '../events/index.js';


export interface ChildKeeper {
  readonly hasCommand: boolean;
  readonly isStarted: boolean;
  /** Running now (not exited by itself, not stopped). */
  readonly isRunning: boolean;
  /** Starts the child, or restarts it with the current environment. */
  restart(): Promise<void>;
  /** Stops the child; on shutdown with a short grace so the daemon exits within 3 s. */
  close(options?: { graceMs?: number }): Promise<void>;
  /** SIGKILLs the child's tree at once (a second Ctrl-C). */
  killNow(): void;
}

/** The dev server command as the daemon runs it: events for every state, restart with a fresh env. */
export function createChildKeeper(options: {
  command: string[];
  cwd: string;
  env(): Record<string, string | undefined>;
  emit(event: NewDaemonEvent): void;
  logger: Logger;
  stopGraceMs?: number;
  /** The stop's grace period runs on it (tests drive it); real time when left out. */
  clock?: Clock;
  /** Masks secrets in the dev server's output before a long line is cut in pieces. */
  maskOutput?: (text: string) => string;
  /** Where the running child is noted, with the daemon that owns it, so a start after a crash can stop it (orphan-child.ts). */
  orphanNote?: { dataDir: string; ownerPid: number };
}): ChildKeeper {
  const commandText = options.command.join(' ');
  let runner: ChildRunner | undefined;
  let isClosed = false;
  return {
    get hasCommand() {
      return options.command.length > 0;
    },
    get isStarted() {
      return runner !== undefined;
    },
    get isRunning() {
      return runner?.state.state === 'running';
    },
    async restart() {
      if (options.command.length === 0 || isClosed) return;
      options.emit({ event: 'child', state: 'starting', command: commandText });
      if (runner) {
        await runner.restart(options.env());
        return;
      }
      runner = await startChildProcess({
        command: options.command,
        cwd: options.cwd,
        env: options.env(),
        logger: options.logger,
        ...(options.stopGraceMs ? { stopGraceMs: options.stopGraceMs } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        onOutput: (line, stream) => options.emit({ event: 'output', stream, line }),
        ...(options.maskOutput ? { maskOutput: options.maskOutput } : {}),
        onStateChange: (state) => {
          if (options.orphanNote) {
            const { dataDir, ownerPid } = options.orphanNote;
            const note =
              state.state === 'running' ? noteChild(dataDir, { pid: state.pid, ownerPid, command: options.command }) : state.state === 'starting' ? undefined : forgetChild(dataDir);
            note?.catch((error: unknown) => options.logger.debug(`noting the dev server: ${String(error)}`));
          }
          if (state.state === 'running') options.emit({ event: 'child', state: 'running', pid: state.pid, command: commandText });
          else if (state.state === 'exited')
            options.emit({ event: 'child', state: 'exited', pid: state.pid, code: state.code, signal: state.signal });
          else if (state.state === 'stopped') options.emit({ event: 'child', state: 'stopped' });
        },
      });
    },
    killNow() {
      runner?.killNow();
    },
    async close(closeOptions) {
      isClosed = true;
      await runner?.close(closeOptions);
    },
  };
}
