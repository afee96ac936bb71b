import { PassThrough } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import type { Clock } from '../../src/shared/index.js';
import { isProcessGroupAlive } from '../../src/platform/index.js';
import { useTeardown } from './use-teardown.js';

export const CLI_PATH = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
/** The bundled CLI, package.json's bin (what users run); the suite runs CLI_PATH, the unbundled modules, but for the bundle's own tests. */
export const BUNDLED_CLI_PATH = fileURLToPath(new URL('../../dist/bin/median-dev.js', import.meta.url));

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An io whose streams nobody reads, for building the command tree (createProgram) without running a command. */
export function silentIo(): CliIo {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    isInteractive: false,
    onSignal: () => () => undefined,
    pid: process.pid,
    exit: (code) => {
      throw new Error(`exit(${code}) called in-process`);
    },
  };
}

/** Runs the CLI in this process with captured streams (fast; for parsing and short commands). */
export async function runCliInProcess(
  argv: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    isTTY?: boolean;
    /**
     * Typed answers, one per question the command asks on stderr (a prompt
     * ends in "] " or ": "); given, the run is interactive. A question past
     * the last answer gets an empty line (Enter).
     */
    answers?: string[];
    /** The clock the command's waits run on (test/helpers/manual-clock.ts). */
    clock?: Clock;
  } = {},
): Promise<InProcessRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  const answers = [...(options.answers ?? [])];
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += String(c)));
  stderr.on('data', (c) => {
    err += String(c);
    // readline writes each question to stderr and then waits for a line: answer it.
    if (options.answers && /(\] |: )$/.test(String(c))) stdin.write(`${answers.shift() ?? ''}\n`);
  });
  const io: CliIo = {
    stdout,
    stderr,
    stdin,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    isTTY: options.isTTY ?? false,
    isInteractive: options.answers !== undefined,
    onSignal: () => () => undefined,
    pid: process.pid,
    exit: (code) => {
      throw new Error(`exit(${code}) called in-process`);
    },
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout: out, stderr: err };
}

export interface SpawnedCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Parsed `--json` lines so far. */
  events(): Array<Record<string, unknown>>;
  waitForEvent(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns the built CLI (`dist/`; `entry`: which of its files, default CLI_PATH), stopped when the test ends. */
export function spawnCli(argv: string[], options: { env?: Record<string, string | undefined>; cwd?: string; entry?: string } = {}): SpawnedCli {
  const child = spawn(process.execPath, [options.entry ?? CLI_PATH, ...argv], {
    cwd: options.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (c) => {
    out += String(c);
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (c) => (err += String(c)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const events = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  const handle: SpawnedCli = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    events,
    waitForEvent(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events().find(predicate);
          if (found) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`No matching event within ${timeoutMs} ms.\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const onExit = () => {
          check();
          cleanup();
          reject(new Error(`The CLI exited before the event.\nstdout:\n${out}\nstderr:\n${err}`));
        };
        function cleanup() {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        }
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return useTeardown(handle, async (h) => {
    if (h.child.exitCode === null && h.child.signalCode === null) {
      h.child.kill('SIGKILL');
      await h.exited;
    }
    // A SIGKILLed CLI cannot stop its dev server (a process group of its own): end what is left of it.
    for (const event of h.events()) {
      if (event.event !== 'child' || event.state !== 'running' || typeof event.pid !== 'number') continue;
      if (process.platform !== 'win32' && isProcessGroupAlive(event.pid)) {
        try {
          process.kill(-event.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  });
}
