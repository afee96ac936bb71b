import { MedianDevError, UserError, silentLogger, systemClock, type Clock, type Logger } from '../shared/index.js';
import { killProcessTreeNow, realSystemCalls } from '../platform/index.js';
import { spawnChildSession, type ChildSession } from './child-session.js';

export interface ChildProcessOptions {
  /** The user's command as argv: `['npm', 'run', 'dev']`. */
  command: string[];
  cwd: string;
  /** The whole environment of the child (undefined values are left out). */
  env: Record<string, string | undefined>;
  logger?: Logger;
  /** How long a stop waits after SIGTERM before SIGKILL; default 5000. */
  stopGraceMs?: number;
  /** The stop's grace and waits run on it (tests drive it); real time when left out. */
  clock?: Clock;
  /** One line of output, without its line ending. */
  onOutput?(line: string, stream: 'stdout' | 'stderr'): void;
  /** Masks secrets in output before a long line is cut in pieces. */
  maskOutput?: (text: string) => string;
  onStateChange?(state: ChildState): void;
}

export type ChildState =
  | { state: 'starting' }
  | { state: 'running'; pid: number }
  | { state: 'exited'; pid: number; code: number | null; signal: string | null }
  | { state: 'stopped' };

export interface ChildRunner {
  readonly state: ChildState;
  /**
   * Stops the child's process group (SIGTERM, SIGKILL after the grace period),
   * then starts the command again, with `env` when given. Works after the
   * child exited by itself too. Rejects with `child_spawn_failed`.
   */
  restart(env?: Record<string, string | undefined>): Promise<void>;
  /** Stops the whole process group; resolves once it exited. Idempotent. */
  stop(): Promise<void>;
  /** Stops the child for good; leaves no timer, listener or process behind. */
  close(options?: { graceMs?: number }): Promise<void>;
  /** SIGKILLs the whole tree at once, synchronously, for a process about to exit. */
  killNow(): void;
}

export const DEFAULT_STOP_GRACE_MS = 5_000;

/**
 * Starts the user's dev server command and resolves once it was spawned (pid
 * known). Its output arrives line by line; an exit is reported as the
 * `exited` state and never restarted by itself.
 */
export async function startChildProcess(options: ChildProcessOptions): Promise<ChildRunner> {
  if (options.command.length === 0 || options.command[0] === '') {
    throw new UserError('child_spawn_failed', 'No dev server command was given after --.', {
      hint: 'Name the command that starts your dev server, e.g. median-dev start -- npm run dev.',
      exitCode: 2,
    });
  }
  const command = [...options.command];
  const logger = options.logger ?? silentLogger;
  const stopGraceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  let env = { ...options.env };
  let state: ChildState = Object.freeze({ state: 'stopped' });
  let session: ChildSession | null = null;
  let isClosed = false;
  let closing: Promise<void> | undefined;
  /** Bumped by every stop, so a restart queued before it does not start the child again. */
  let stopCount = 0;
  /** Operations run one after the other, never interleaved. */
  let queue: Promise<unknown> = Promise.resolve();

  function enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = queue.then(operation);
    queue = result.catch(() => {
      /* the caller of this operation gets its error; the queue only keeps the order */
    });
    return result;
  }

  function setState(next: ChildState): void {
    state = Object.freeze(next);
    try {
      options.onStateChange?.(state);
    } catch (error) {
      logger.error('onStateChange failed', { error: String(error) });
    }
  }

  function onOutput(line: string, stream: 'stdout' | 'stderr'): void {
    try {
      options.onOutput?.(line, stream);
    } catch (error) {
      logger.error('onOutput failed', { error: String(error) });
    }
  }

  async function launch(): Promise<void> {
    setState({ state: 'starting' });
    let started: ChildSession;
    try {
      started = await spawnChildSession({ command, cwd: options.cwd, env, logger, system: realSystemCalls, clock: options.clock ?? systemClock, onOutput, ...(options.maskOutput ? { maskOutput: options.maskOutput } : {}) });
    } catch (error) {
      setState({ state: 'stopped' });
      throw error;
    }
    session = started;
    logger.debug('child started', { pid: started.pid, command });
    setState({ state: 'running', pid: started.pid });
    void started.exited.then((exit) => {
      if (session !== started || started.isStopping) return;
      setState({ state: 'exited', pid: started.pid, code: exit.code, signal: exit.signal });
    });
  }

  async function halt(graceMs: number = stopGraceMs): Promise<void> {
    const current = session;
    if (current) {
      await current.stop(graceMs);
      session = null;
    }
    if (state.state !== 'stopped') setState({ state: 'stopped' });
  }

  await enqueue(launch);

  return {
    get state() {
      return state;
    },
    restart(nextEnv) {
      if (isClosed) {
        return Promise.reject(
          new MedianDevError('child_closed', 'The dev server command was stopped for good; it cannot be restarted.'),
        );
      }
      const stopsSoFar = stopCount;
      return enqueue(async () => {
        await halt();
        if (isClosed || stopCount !== stopsSoFar) return;
        if (nextEnv) env = { ...nextEnv };
        await launch();
      });
    },
    stop() {
      stopCount += 1;
      return enqueue(halt);
    },
    close(closeOptions) {
      closing ??= (() => {
        isClosed = true;
        stopCount += 1;
        return enqueue(() => halt(closeOptions?.graceMs));
      })();
      return closing;
    },
    killNow() {
      if (session) killProcessTreeNow(session.pid, realSystemCalls);
    },
  };
}
