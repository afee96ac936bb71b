/**
 * The real built CLI (`median-dev start --json …`) as a child process. Its
 * event lines are read as they come: `call` events are counted and their
 * toolCallIds kept (a Set; the soak checks them against the store), `output`
 * lines of the dev server are counted, every other event is kept in order
 * (bounded) for the heal timings. Stopped with SIGINT like a user's Ctrl-C,
 * SIGKILL after a grace period; the dev server's process group is killed
 * too if the CLI could not stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { isProcessGroupAlive } from '../../src/platform/index.js';
import { binArgv } from '../bin-node-args.js';

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
  /** The first kept event at index ≥ `after` that `matches`; rejects after `timeoutMs` or when the CLI exits. */
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
}): SoakDaemon {
  const nodeArgv = [...(options.nodeArgs ?? []), ...binArgv(options.cliEntry, options.args)];
  const child: ChildProcess = spawn(process.execPath, nodeArgv, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('The CLI could not be spawned.');
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
  if (otherLines) child.once('exit', () => otherLines.end());

  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
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
          // whole chunk it came from alive (the line holds the record, ~3 KB): 100,000 ids held
          // ~300 MB of this process's heap that way.
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
      if (!isRunning()) {
        reject(new Error(`The CLI had exited (code ${child.exitCode ?? child.signalCode}). stderr: ${stderr.slice(-800)}`));
        return;
      }
      const finish = (error: Error | undefined, event?: DaemonEventLine): void => {
        clearTimeout(timer);
        listeners.delete(listener);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(event!);
      };
      const listener = (): void => {
        const event = find();
        if (event) finish(undefined, event);
      };
      const onExit = (code: number | null): void => finish(new Error(`The CLI exited (code ${code}) while the soak waited for an event. stderr: ${stderr.slice(-800)}`));
      const timer = setTimeout(() => finish(new Error(`No such event from the CLI within ${timeoutMs} ms.`)), timeoutMs);
      listeners.add(listener);
      child.once('exit', onExit);
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
