import { readdirSync, readFileSync } from 'node:fs';
import { nodeChildProcess } from '../shared/lazy-builtins.js';

/**
 * The operating-system calls the platform helpers make, passed in so unit
 * tests can describe another platform (win32, darwin) while running on Linux.
 * Left out, each falls back to the real call of this process.
 */
export interface SystemCalls {
  platform: NodeJS.Platform;
  /** `process.kill`: a negative pid signals a whole process group (POSIX). */
  kill(pid: number, signal: NodeJS.Signals | 0): void;
  /** Runs a program without a shell; resolves with its exit code (null when it could not run). */
  run(file: string, args: readonly string[], timeoutMs: number): Promise<number | null>;
  /** The same, blocking (for a process about to exit); errors are swallowed. */
  runSync(file: string, args: readonly string[], timeoutMs: number): void;
  /** Runs a program without a shell and gives its standard output; undefined when it failed. */
  readCommand?(file: string, args: readonly string[], timeoutMs: number): string | undefined;
  /** Reads a small text file (`/proc/<pid>/stat`); throws when it is missing. */
  readTextFile(path: string): string;
  /** Lists a folder (`/proc`); throws when it is missing. */
  listDir(path: string): string[];
}

export const realSystemCalls: SystemCalls = Object.freeze({
  platform: process.platform,
  kill(pid: number, signal: NodeJS.Signals | 0): void {
    process.kill(pid, signal);
  },
  run(file: string, args: readonly string[], timeoutMs: number): Promise<number | null> {
    return new Promise((resolve) => {
      nodeChildProcess().execFile(file, [...args], { windowsHide: true, timeout: timeoutMs }, (error) => {
        if (!error) return resolve(0);
        const code = (error as { code?: unknown }).code;
        resolve(typeof code === 'number' ? code : null);
      });
    });
  },
  runSync(file: string, args: readonly string[], timeoutMs: number): void {
    try {
      nodeChildProcess().execFileSync(file, [...args], { windowsHide: true, timeout: timeoutMs, stdio: 'ignore' });
    } catch {
      // The tree may be gone already; the caller is exiting either way.
    }
  },
  readCommand(file: string, args: readonly string[], timeoutMs: number): string | undefined {
    try {
      return nodeChildProcess().execFileSync(file, [...args], { windowsHide: true, timeout: timeoutMs, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
    } catch {
      return undefined;
    }
  },
  readTextFile(path: string): string {
    return readFileSync(path, 'utf8');
  },
  listDir(path: string): string[] {
    return readdirSync(path);
  },
});

export function withSystemCalls(overrides: Partial<SystemCalls> = {}): SystemCalls {
  return { ...realSystemCalls, ...overrides };
}
