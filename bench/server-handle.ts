/** The parent side of server-process.ts: fork one, wait for its URL, settle it, stop it. */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ParentMessage, ServerMessage, ServerSpec, Settled } from './server-process.js';

const ENTRY = fileURLToPath(new URL('./server-process.js', import.meta.url));
const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 10_000;

export interface ServerHandle {
  url: string;
  pid: number;
  /** Waits until every record is on disk; the recording proxy's counters and the process's CPU time. */
  settle(): Promise<Settled>;
  /** Asks the child to close, waits for its exit (SIGKILL after a grace period). Idempotent. */
  stop(): Promise<void>;
}

function nextMessage(child: ChildProcess, timeoutMs: number, what: string): Promise<ServerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`The bench server did not answer (${what}) within ${timeoutMs} ms.`)), timeoutMs);
    const onMessage = (message: ServerMessage) => finish(undefined, message);
    const onExit = (code: number | null) => finish(new Error(`The bench server exited (code ${code}) while waiting for ${what}.`));
    const finish = (error: Error | undefined, message?: ServerMessage) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else if (message?.type === 'failed') reject(new Error(`The bench server failed: ${message.message}`));
      else resolve(message!);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function forkServer(spec: ServerSpec, options: { execArgv?: string[] } = {}): Promise<ServerHandle> {
  const child = fork(ENTRY, [JSON.stringify(spec)], { execArgv: options.execArgv ?? [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };
  let ready: ServerMessage;
  try {
    ready = await nextMessage(child, START_TIMEOUT_MS, 'ready');
  } catch (error) {
    await stop();
    throw error;
  }
  if (ready.type !== 'ready') {
    await stop();
    throw new Error(`The bench server said ${ready.type} instead of ready.`);
  }
  return {
    url: ready.url,
    pid: child.pid!,
    async settle() {
      child.send({ type: 'settle' } satisfies ParentMessage);
      const reply = await nextMessage(child, 40_000, 'settle');
      if (reply.type !== 'settled') throw new Error(`The bench server said ${reply.type} instead of settled.`);
      return { stats: reply.stats, cpuUs: reply.cpuUs, ...(reply.connects === undefined ? {} : { connects: reply.connects }) };
    },
    stop,
  };
}
