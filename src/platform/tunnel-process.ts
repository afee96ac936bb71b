import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { systemClock, type Clock, type ClockTimer } from '../shared/clock.js';
import { signalProcessTree, stopModes } from './process-signals.js';
import { realSystemCalls, type SystemCalls } from './system-calls.js';

/** How a tunnel program (`cloudflared`, `ssh`) ended. */
export interface ProgramExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The program could not start at all (ENOENT, EACCES), with Node's error code. */
  spawnErrorCode?: string;
}

/** A tunnel program the user installed, run as our child. */
export interface TunnelProgram {
  readonly pid: number | undefined;
  /** Every line it prints, stdout and stderr, as it comes. */
  onLine(listener: (line: string, stream: 'stdout' | 'stderr') => void): void;
  /** Settles once, when the program is gone (also when it never started). */
  readonly exited: Promise<ProgramExit>;
  readonly hasExited: boolean;
  /**
   * Stops it and everything it started: the process group is asked to stop
   * (SIGTERM on POSIX), then killed after `graceMs`; resolves when it exited.
   * Idempotent.
   */
  stop(graceMs?: number): Promise<ProgramExit>;
}

export interface StartTunnelProgramOptions {
  file: string;
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  system?: SystemCalls;
  /** The stop's grace before the kill runs on it (tests drive it); real time when left out. */
  clock?: Clock;
}

/** The most a program's exit waits for the rest of its output once it exited. */
const STREAM_DRAIN_MS = 500;

/**
 * Runs a tunnel program without a shell, in its own process group on POSIX
 * (so a stop reaches what it forks), with stdin closed: a program that would
 * prompt (an ssh host-key question) reads end-of-file instead of hanging.
 */
export function startTunnelProgram(options: StartTunnelProgramOptions): TunnelProgram {
  const system = options.system ?? realSystemCalls;
  const clock = options.clock ?? systemClock;
  const listeners: Array<(line: string, stream: 'stdout' | 'stderr') => void> = [];
  let child: ChildProcess | undefined;
  let hasExited = false;
  let settle!: (exit: ProgramExit) => void;
  const exited = new Promise<ProgramExit>((resolve) => (settle = resolve));
  const finish = (exit: ProgramExit): void => {
    if (hasExited) return;
    hasExited = true;
    settle(exit);
  };
  try {
    child = spawn(options.file, [...options.args], {
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: system.platform !== 'win32',
      windowsHide: true,
    });
  } catch (error) {
    finish({ code: null, signal: null, spawnErrorCode: (error as { code?: string }).code ?? 'EINVAL' });
  }
  if (child) {
    const running = child;
    running.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failure to start ends it here; a later error (a kill that failed) leaves it running.
      if (running.pid === undefined) finish({ code: null, signal: null, spawnErrorCode: error.code ?? 'EINVAL' });
    });
    /*
     * Node may report the exit before the last lines the program printed have
     * been read from its pipes: ssh prints "Host key verification failed."
     * and exits, and under load the exit came first, so the error said
     * ssh_exited instead of ssh_host_key_unknown. The exit counts once both
     * pipes ended too, or after STREAM_DRAIN_MS (a program whose child keeps
     * them open does not hold its exit longer).
     */
    let openStreams = 0;
    let exitSeen: ProgramExit | undefined;
    let drainTimer: ClockTimer | undefined;
    const finishWhenDrained = (): void => {
      if (exitSeen === undefined || openStreams > 0) return;
      drainTimer?.cancel();
      finish(exitSeen);
    };
    running.once('exit', (code, signal) => {
      exitSeen = { code, signal };
      if (openStreams > 0) drainTimer = clock.setTimer(() => finish({ code, signal }), STREAM_DRAIN_MS);
      finishWhenDrained();
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const source = running[stream];
      if (!source) continue;
      source.setEncoding('utf8');
      openStreams += 1;
      const lines = createInterface({ input: source, crlfDelay: Infinity });
      lines.on('line', (line) => {
        for (const listener of listeners) listener(line, stream);
      });
      lines.once('close', () => {
        openStreams -= 1;
        finishWhenDrained();
      });
    }
  }

  let stopping: Promise<ProgramExit> | undefined;
  return {
    get pid() {
      return child?.pid;
    },
    get hasExited() {
      return hasExited;
    },
    exited,
    onLine(listener) {
      listeners.push(listener);
    },
    stop(graceMs = 3_000) {
      stopping ??= (async () => {
        if (!child || hasExited) return exited;
        for (const mode of stopModes(system.platform)) {
          if (hasExited) break;
          await signalProcessTree(child, mode, system);
          let timer: ClockTimer | undefined;
          // Keeps the process alive: the program must be gone before we may exit.
          await Promise.race([exited, new Promise<void>((resolve) => (timer = clock.setTimer(resolve, graceMs, { keepsProcessAlive: true })))]);
          timer?.cancel();
        }
        return exited;
      })();
      return stopping;
    },
  };
}
