import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Clock, Logger } from '../shared/index.js';
import {
  isProcessGroupAlive,
  signalProcessTree,
  spawnCommandSpec,
  stopModes,
  type SystemCalls,
} from '../platform/index.js';
import { createLineSplitter } from './line-splitter.js';
import { spawnFailure } from './spawn-failure.js';

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export interface ChildSessionOptions {
  command: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  logger: Logger;
  system: SystemCalls;
  /** The grace before SIGKILL, the forced kill's wait and the last output's wait run on it (tests drive it). */
  clock: Clock;
  onOutput(line: string, stream: 'stdout' | 'stderr'): void;
  /** Masks secrets in output before a line too long for one piece is cut (see createLineSplitter). */
  maskOutput?: (text: string) => string;
}

/** One spawned process of the user's command, from spawn to dispose. */
export interface ChildSession {
  readonly pid: number;
  /** Set once `stop()` was called: an exit from then on is ours, not the child's. */
  readonly isStopping: boolean;
  /**
   * Resolves when the process exited and its output was read (or after a
   * short wait, when a grandchild keeps the pipes open). Never rejects.
   */
  readonly exited: Promise<ChildExit>;
  /** Stops the whole tree (graceful, then forced after `graceMs`), reads the last output and drops every listener. */
  stop(graceMs: number): Promise<void>;
}

/** How long an exit waits for the last output before it is reported anyway. */
const OUTPUT_DRAIN_MS = 500;
/** How long a forced kill may take before the stop gives up waiting. */
const FORCE_WAIT_MS = 5_000;
const POLL_MS = 20;

/** Spawns `command` and resolves once it runs (pid known); rejects with `child_spawn_failed`. */
export async function spawnChildSession(options: ChildSessionOptions): Promise<ChildSession> {
  const { command, cwd, system } = options;
  const spec = spawnCommandSpec(command, system.platform);
  const env = Object.fromEntries(Object.entries(options.env).filter(([, value]) => value !== undefined));

  let child: ChildProcess;
  try {
    child = spawn(spec.file, spec.args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: spec.shell,
      detached: spec.detached,
      windowsHide: spec.windowsHide,
    });
  } catch (error) {
    throw await spawnFailure(command, cwd, error);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const onSpawn = () => {
        child.off('error', onError);
        resolve();
      };
      const onError = (error: Error) => {
        child.off('spawn', onSpawn);
        reject(error);
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
  } catch (error) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    throw await spawnFailure(command, cwd, error);
  }
  return wireSession(child, options);
}

function wireSession(child: ChildProcess, options: ChildSessionOptions): ChildSession {
  const { logger, system, clock } = options;
  const pid = child.pid as number;
  let exit: ChildExit | null = null;
  let isStopping = false;
  let stopping: Promise<void> | undefined;
  const removers: Array<() => void> = [];
  const listen = <A extends unknown[]>(emitter: NodeJS.EventEmitter, event: string, listener: (...args: A) => void) => {
    const untyped = (...args: unknown[]) => listener(...(args as A));
    emitter.on(event, untyped);
    removers.push(() => emitter.off(event, untyped));
  };

  const streams: Array<[Readable, 'stdout' | 'stderr']> = [];
  if (child.stdout) streams.push([child.stdout, 'stdout']);
  if (child.stderr) streams.push([child.stderr, 'stderr']);
  const flushers: Array<() => void> = [];
  for (const [stream, name] of streams) {
    const splitter = createLineSplitter((line) => options.onOutput(line, name), options.maskOutput ? { mask: options.maskOutput } : {});
    stream.setEncoding('utf8');
    listen(stream, 'data', (chunk: string) => splitter.push(chunk));
    listen(stream, 'end', () => splitter.flush());
    listen(stream, 'error', (error: Error) =>
      logger.debug('child output stream failed', { pid, stream: name, error: String(error) }),
    );
    flushers.push(() => splitter.flush());
  }
  // Stays after dispose on purpose: a late kill failure must not crash the daemon.
  child.on('error', (error) => logger.debug('child process error', { pid, error: String(error) }));

  const exitedNow = new Promise<ChildExit>((resolve) => {
    listen(child, 'exit', (code: number | null, signal: NodeJS.Signals | null) => {
      exit = { code, signal };
      logger.debug('child exited', { pid, code, signal });
      resolve(exit);
    });
  });
  const outputClosed = new Promise<void>((resolve) => listen(child, 'close', () => resolve()));
  /**
   * After the child exited: whether processes of its group still run. Only
   * known then: an empty group stays empty, so a later stop never signals a
   * group id the system may have handed to someone else.
   */
  const hasLingeringGroup = exitedNow.then(async () => {
    await withTimeout(outputClosed, OUTPUT_DRAIN_MS, clock);
    return system.platform !== 'win32' && isProcessGroupAlive(pid, system);
  });
  const exited = hasLingeringGroup.then((isLingering) => {
    if (isLingering && !isStopping) {
      logger.warn(
        'The dev server command exited, but processes it started still run; they are stopped on restart or quit.',
        { pid },
      );
    }
    return exit as ChildExit;
  });

  /** Whether anything of the tree still runs: the child, or after its exit, its group (POSIX). */
  const isTreeAlive = (): boolean => {
    if (exit === null) return true;
    return system.platform !== 'win32' && isProcessGroupAlive(pid, system);
  };

  async function stopTree(graceMs: number): Promise<void> {
    if (exit !== null && !(await hasLingeringGroup)) return;
    const modes = stopModes(system.platform);
    for (const [index, mode] of modes.entries()) {
      if (!isTreeAlive()) return;
      const isDelivered = await signalProcessTree(child, mode, system);
      logger.debug('signalled the child process tree', { pid, mode, isDelivered });
      const isLast = index === modes.length - 1;
      if (await waitUntil(() => !isTreeAlive(), isLast ? FORCE_WAIT_MS : graceMs, clock)) return;
      if (isLast) {
        logger.warn('The dev server still runs after a forced kill; giving up waiting for it.', { pid });
      } else {
        logger.warn(`The dev server did not stop within ${graceMs} ms of SIGTERM; killing it.`, { pid });
      }
    }
  }

  function dispose(): void {
    for (const flush of flushers) flush();
    for (const remove of removers) remove();
    for (const [stream] of streams) stream.destroy();
  }

  return {
    pid,
    get isStopping() {
      return isStopping;
    },
    exited,
    stop(graceMs) {
      isStopping = true;
      stopping ??= (async () => {
        await stopTree(graceMs);
        if (exit !== null) await withTimeout(outputClosed, OUTPUT_DRAIN_MS, clock);
        dispose();
      })();
      return stopping;
    },
  };
}

/**
 * Polls `isDone` until it holds or `timeoutMs` passed on `clock`; resolves
 * whether it held. The poll looks at a real process, so it runs on real time
 * (every POLL_MS) whatever the clock; only the deadline is the clock's. Its
 * timer stays ref'd on purpose: a stop in progress must finish before the
 * process may exit, or the dev server would outlive the daemon.
 */
function waitUntil(isDone: () => boolean, timeoutMs: number, clock: Clock): Promise<boolean> {
  if (isDone()) return Promise.resolve(true);
  const deadline = clock.now() + timeoutMs;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (isDone()) {
        clearInterval(timer);
        resolve(true);
      } else if (clock.now() >= deadline) {
        clearInterval(timer);
        resolve(false);
      }
    }, POLL_MS);
  });
}

function withTimeout(promise: Promise<void>, timeoutMs: number, clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(resolve, timeoutMs);
    void promise.then(() => {
      timer.cancel();
      resolve();
    });
  });
}
