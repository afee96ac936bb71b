/**
 * The real daemon (`median-dev start … --json`) as a child process: its
 * `--json` event lines are read as they come (counted, not kept), the proxy
 * URL is taken from the first `proxy` event, and it is stopped with SIGINT
 * like a user's Ctrl-C (SIGKILL only after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { binArgv } from './bin-node-args.js';

export interface DaemonEventLine {
  event: string;
  [field: string]: unknown;
}

export interface DaemonProcess {
  pid: number;
  proxyUrl: string;
  /** `call` events seen so far, and how many of them had a valid signature. */
  calls(): { total: number; valid: number };
  /** The non-`call` events, in order (a few dozen at most). */
  otherEvents(): DaemonEventLine[];
  /** Resolves once `count` call events were seen; rejects after `timeoutMs`. */
  waitForCalls(count: number, timeoutMs: number): Promise<void>;
  /** Resolves with the first event (call events aside) that `matches`; rejects after `timeoutMs`. */
  waitForEvent(matches: (event: DaemonEventLine) => boolean, timeoutMs: number): Promise<DaemonEventLine>;
  /** SIGINT, then waits for the exit (SIGKILL after `graceMs`). Idempotent. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stopMs: number; killed: boolean }>;
  stderrTail(): string;
  /** performance.now() right before the spawn, and when the first event line (of any kind) came. */
  spawnedAtMs: number;
  firstEventAtMs(): number | undefined;
}

const MAX_OTHER_EVENTS = 200;

export async function startDaemonProcess(options: {
  cliEntry: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** How many non-`call` events to keep (default 200; `output` lines of the dev server count too). */
  maxOtherEvents?: number;
}): Promise<DaemonProcess> {
  const maxOtherEvents = options.maxOtherEvents ?? MAX_OTHER_EVENTS;
  const spawnedAtMs = performance.now();
  let firstEventAtMs: number | undefined;
  const child: ChildProcess = spawn(process.execPath, binArgv(options.cliEntry, options.args), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let total = 0;
  let valid = 0;
  const others: DaemonEventLine[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let carry = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    firstEventAtMs ??= text.includes('\n') ? performance.now() : undefined;
    const lines = (carry + text).split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{"event":"call"')) {
        total += 1;
        if (line.includes('"signature":"valid"')) valid += 1;
        continue;
      }
      if (line.trim() === '') continue;
      try {
        if (others.length < maxOtherEvents) others.push(JSON.parse(line) as DaemonEventLine);
      } catch {
        // Not a JSON event (should not happen with --json): kept out of the counts.
      }
    }
    for (const listener of listeners) listener();
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr = (stderr + text).slice(-4_000);
  });

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const found = check();
      if (found !== undefined) {
        resolve(found);
        return;
      }
      const done = (error: Error | undefined, value?: T): void => {
        clearTimeout(timer);
        listeners.delete(listener);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(value as T);
      };
      const listener = (): void => {
        const value = check();
        if (value !== undefined) done(undefined, value);
      };
      const onExit = (code: number | null): void => done(new Error(`The daemon exited (code ${code}) while waiting for ${what}. stderr: ${stderr.slice(-500)}`));
      const timer = setTimeout(() => done(new Error(`No ${what} from the daemon within ${timeoutMs} ms. stderr: ${stderr.slice(-500)}`)), timeoutMs);
      listeners.add(listener);
      child.once('exit', onExit);
    });

  let stopping: ReturnType<DaemonProcess['stop']> | undefined;
  const stop: DaemonProcess['stop'] = (graceMs = 15_000) => {
    stopping ??= (async () => {
      const started = performance.now();
      let killed = false;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, graceMs);
      try {
        const [code, signal] = await exited;
        return { code, signal, stopMs: performance.now() - started, killed };
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  const waitForEvent: DaemonProcess['waitForEvent'] = (matches, timeoutMs) => waitUntil(() => others.find(matches), timeoutMs, 'such event');
  let proxyUrl: string;
  try {
    const proxy = await waitForEvent((e) => e.event === 'proxy' && typeof e.url === 'string', options.startTimeoutMs);
    proxyUrl = proxy.url as string;
  } catch (error) {
    await stop(2_000);
    throw error;
  }
  return {
    pid: child.pid!,
    proxyUrl,
    spawnedAtMs,
    firstEventAtMs: () => firstEventAtMs,
    calls: () => ({ total, valid }),
    otherEvents: () => [...others],
    waitForCalls: (count, timeoutMs) => waitUntil(() => (total >= count ? true : undefined), timeoutMs, `${count} call events`).then(() => undefined),
    waitForEvent,
    stop,
    stderrTail: () => stderr,
  };
}
