import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, vi } from 'vitest';
import { useTeardown } from './use-teardown.js';

const run = promisify(execFile);

export interface TmuxPane {
  /** The pane's text now, one string per row. */
  text(): Promise<string>;
  sendKeys(...keys: string[]): Promise<void>;
  /**
   * From now on, every byte the program writes to the terminal (escape
   * sequences included, before tmux interprets them) goes to `file`
   * (`tmux pipe-pane`); the test reads it.
   */
  pipeRaw(file: string): Promise<void>;
}

/**
 * A real terminal: a detached tmux session of `width`×`height` running
 * `argv` (no shell: each argument passed as it is), killed when the test ends.
 */
export async function useTmux(argv: readonly string[], options: { width?: number; height?: number; env?: Record<string, string>; cwd?: string } = {}): Promise<TmuxPane> {
  await run('tmux', ['-V']).catch(() => {
    throw new Error('These tests drive a real terminal through tmux: install it (apt-get install tmux, brew install tmux).');
  });
  const session = `median-dev-test-${randomUUID().slice(0, 8)}`;
  const env = Object.entries(options.env ?? {}).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  // remain-on-exit: a program that ends (prune answered, a command done) leaves its last screen to read;
  // without it the session closed with it and the next capture-pane found no pane. Set in the same tmux
  // command as the session, before the program (a node process) can have exited.
  await run('tmux', [
    'new-session', '-d', '-s', session, '-x', String(options.width ?? 160), '-y', String(options.height ?? 40), ...(options.cwd ? ['-c', options.cwd] : []), ...env, ...argv,
    ';', 'set-option', '-t', session, 'remain-on-exit', 'on',
  ]);
  // The program's pid: the teardown waits for it to be gone, as kill-session only sends it SIGHUP; a
  // program still shutting down (writing its data dir) would race the clean-ups registered before this one.
  const pid = Number((await run('tmux', ['display-message', '-p', '-t', session, '#{pane_pid}']).catch(() => ({ stdout: '' }))).stdout.trim());
  useTeardown(session, async (s) => {
    await run('tmux', ['kill-session', '-t', s]).catch(() => undefined);
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 15_000, interval: 50 });
  });
  return {
    text: async () => (await run('tmux', ['capture-pane', '-p', '-t', session])).stdout,
    sendKeys: async (...keys) => void (await run('tmux', ['send-keys', '-t', session, ...keys])),
    pipeRaw: async (file) => void (await run('tmux', ['pipe-pane', '-O', '-t', session, `cat > '${file.replace(/'/g, "'\\''")}'`])),
  };
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
