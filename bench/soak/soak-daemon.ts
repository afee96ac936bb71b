/**
 * The real built CLI (`median-dev start --json …`) as a child process. Its
 * event lines are read as they come: `call` events are counted (and with
 * `keepCallIds` their toolCallIds kept, a Set the soak checks against the
 * store), `output` lines of the dev server are counted, every other event is
 * kept in order (bounded) for the heal timings. With `relayCallLines` a relay
 * process reads the CLI's stdout and drops the `call` lines before they reach
 * this one. Stopped with SIGINT like a user's Ctrl-C,
 * SIGKILL after a grace period; the dev server's process group is killed
 * too if the CLI could not stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { isProcessGroupAlive } from '../../src/platform/index.js';
import { binArgv } from '../bin-node-args.js';
import { RELAY_CALLS_EVENT } from './call-line-relay.js';

// Run from its TypeScript source (the tests, under vitest), this module spawns the built relay: `npm test` builds first.
const RELAY_ENTRY = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../dist/bench/soak/call-line-relay.js' : './call-line-relay.js', import.meta.url));

export interface DaemonEventLine {
  event: string;
  at: string;
  [field: string]: unknown;
}

export interface StopOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stopMs: number;
  killed: boolean;
  /** Dev server process groups still alive after the CLI exited (killed by us). */
  strayGroups: number[];
}

export interface SoakDaemon {
  pid: number;
  /** What the CLI was spawned with after `node`: the bin's shebang options, the entry, the arguments. */
  nodeArgv: readonly string[];
  /** The kept events (not `call`, not `output`), in order. */
  events(): readonly DaemonEventLine[];
  callEvents(): number;
  /** Whether a `call` event named this toolCallId; only for a daemon spawned with `keepCallIds`. */
  hasCallEvent(toolCallId: string): boolean;
  outputLines(): number;
  /** Characters of the CLI's stdout this process has read (with `relayCallLines`, what the relay passed on). */
  stdoutChars(): number;
  /** The first kept event at index ≥ `after` that `matches`; rejects after `timeoutMs`, or once the CLI's stdout has ended without one. */
  waitForEvent(after: number, matches: (event: DaemonEventLine) => boolean, timeoutMs: number): Promise<DaemonEventLine>;
  /** Pids of the dev server (`child` events with state `running`), oldest first. */
  childPids(): number[];
  isRunning(): boolean;
  stop(graceMs?: number): Promise<StopOutcome>;
  /** Synchronous last resort (watchdog, signals): SIGKILL the CLI and every dev server group it started. */
  killNow(): void;
  stderrTail(): string;
}

const MAX_KEPT_EVENTS = 20_000;
const CALL_PREFIX = '{"event":"call"';
const TOOL_CALL_ID_FIELD = '"toolCallId":"';

function killGroups(pids: readonly number[]): number[] {
  const killed: number[] = [];
  for (const pid of pids) {
    if (!isProcessGroupAlive(pid)) continue;
    try {
      process.kill(-pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

export function spawnSoakDaemon(options: {
  cliEntry: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  /** Where the CLI's stdout lines that are no event go (V8's `--trace-gc` lines, say); left out, they are dropped. */
  otherLinesFile?: string;
  /**
   * Keep the toolCallId of every `call` event, for `hasCallEvent` (the soak
   * checks that each answered call was announced). Off by default: this
   * process is also the load generator that times the daemon's calls, and
   * whatever it keeps per call line it keeps only while the daemon's calls
   * run, not the stock client's or a floor's.
   */
  keepCallIds?: boolean;
  /**
   * The CLI's stdout goes to a relay process (bench/soak/call-line-relay.ts)
   * that drops the `call` lines and passes on the rest with their count, so
   * this process is not woken by them; `callEvents` then lags by up to a
   * second. Not with `keepCallIds`.
   */
  relayCallLines?: boolean;
}): SoakDaemon {
  if (options.relayCallLines && options.keepCallIds) throw new Error('relayCallLines drops the call lines keepCallIds needs.');
  const nodeArgv = [...(options.nodeArgs ?? []), ...binArgv(options.cliEntry, options.args)];
  const relay = options.relayCallLines ? spawn(process.execPath, [RELAY_ENTRY], { stdio: ['pipe', 'pipe', 'inherit'] }) : undefined;
  const child: ChildProcess = spawn(process.execPath, nodeArgv, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', relay ? relay.stdin! : 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    relay?.kill('SIGKILL');
    throw new Error('The CLI could not be spawned.');
  }
  // The relay's end of the pipe is the CLI's now: this process closes its copy, so the relay sees the end when the CLI exits.
  relay?.stdin!.destroy();
  const stdoutLines = relay ? relay.stdout! : child.stdout!;
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => undefined);
  const kept: DaemonEventLine[] = [];
  const callIds = new Set<string>();
  let calls = 0;
  let outputs = 0;
  let stderr = '';
  let carry = '';
  const listeners = new Set<() => void>();
  const otherLines = options.otherLinesFile ? createWriteStream(options.otherLinesFile, { flags: 'a' }) : undefined;

  // Every line is in once the stdout this process reads has closed: after the CLI's exit, later still through the relay.
  let linesEnded = false;
  stdoutLines.once('close', () => {
    linesEnded = true;
    otherLines?.end();
    for (const listener of listeners) listener();
  });
  stdoutLines.setEncoding('utf8');
  let charsRead = 0;
  stdoutLines.on('data', (text: string) => {
    charsRead += text.length;
    const lines = (carry + text).split('\n');
    carry = lines.pop() ?? '';
    let isNews = false;
    for (const line of lines) {
      if (line.startsWith(CALL_PREFIX)) {
        calls += 1;
        const at = options.keepCallIds ? line.indexOf(TOOL_CALL_ID_FIELD) : -1;
        if (at !== -1) {
          const start = at + TOOL_CALL_ID_FIELD.length;
          // A copy, not a slice: V8 makes a slice of 13 characters or more a view that keeps the
          // string it was cut from alive (the chunk of stdout the lines were split from): 100,000
          // ids held ~300 MB of this process's heap that way.
          callIds.add(Buffer.from(line.slice(start, line.indexOf('"', start)), 'latin1').toString('latin1'));
        }
        continue;
      }
      if (line.trim() === '') continue;
      let event: DaemonEventLine;
      try {
        event = JSON.parse(line) as DaemonEventLine;
      } catch {
        otherLines?.write(`${line}\n`); // not an event line (with --json only V8's or Node's own diagnostics)
        continue;
      }
      if (event.event === 'output') {
        outputs += 1;
        continue;
      }
      if (event.event === RELAY_CALLS_EVENT) {
        calls = Number(event.count);
        continue;
      }
      if (kept.length < MAX_KEPT_EVENTS) kept.push(event);
      isNews = true;
    }
    if (isNews) for (const listener of listeners) listener();
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr = (stderr + text).slice(-8_000);
  });

  const childPids = (): number[] =>
    kept.filter((e) => e.event === 'child' && e.state === 'running' && typeof e.pid === 'number').map((e) => e.pid as number);
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;

  const waitForEvent: SoakDaemon['waitForEvent'] = (after, matches, timeoutMs) =>
    new Promise((resolve, reject) => {
      const find = (): DaemonEventLine | undefined => {
        for (let i = after; i < kept.length; i += 1) if (matches(kept[i]!)) return kept[i];
        return undefined;
      };
      const found = find();
      if (found) {
        resolve(found);
        return;
      }
      const ended = (): Error => new Error(`The CLI's output ended (it exited: code ${child.exitCode ?? child.signalCode}) before such an event. stderr: ${stderr.slice(-800)}`);
      if (linesEnded) {
        reject(ended());
        return;
      }
      const finish = (error: Error | undefined, event?: DaemonEventLine): void => {
        clearTimeout(timer);
        listeners.delete(listener);
        if (error) reject(error);
        else resolve(event!);
      };
      const listener = (): void => {
        const event = find();
        if (event) finish(undefined, event);
        else if (linesEnded) finish(ended());
      };
      const timer = setTimeout(() => finish(new Error(`No such event from the CLI within ${timeoutMs} ms.`)), timeoutMs);
      listeners.add(listener);
    });

  let stopping: Promise<StopOutcome> | undefined;
  const stop: SoakDaemon['stop'] = (graceMs = 15_000) => {
    stopping ??= (async () => {
      const started = performance.now();
      let killed = false;
      if (isRunning()) child.kill('SIGINT');
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, graceMs);
      try {
        const [code, signal] = await exited;
        return { code, signal, stopMs: performance.now() - started, killed, strayGroups: killGroups(childPids()) };
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  return {
    pid: child.pid,
    nodeArgv,
    events: () => kept,
    callEvents: () => calls,
    hasCallEvent: (id) => {
      if (!options.keepCallIds) throw new Error('hasCallEvent needs a daemon spawned with keepCallIds.');
      return callIds.has(id);
    },
    outputLines: () => outputs,
    stdoutChars: () => charsRead,
    waitForEvent,
    childPids,
    isRunning,
    stop,
    killNow() {
      if (isRunning()) child.kill('SIGKILL');
      killGroups(childPids());
    },
    stderrTail: () => stderr,
  };
}
