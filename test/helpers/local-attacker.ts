import { spawn } from 'node:child_process';
import { expect, vi } from 'vitest';
import { useTeardown } from './use-teardown.js';

/**
 * Starts `script` (CommonJS, run with `node -e`) as a second local process:
 * another user (`nobody`) when the test runs as root, so it reads /proc like
 * anybody and none of our files. It reports with JSON lines on stdout and
 * says `{"ready":true}` once it runs; resolves then, with its lines so far on
 * each call. Killed when the test ends.
 */
export async function startLocalAttacker<Line extends { ready?: boolean }>(script: string): Promise<{ lines(): Line[] }> {
  const isRoot = process.getuid?.() === 0;
  const attacker = spawn(process.execPath, ['-e', script], { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], ...(isRoot ? { uid: 65534, gid: 65534 } : {}) });
  useTeardown(attacker, (a) => {
    if (a.exitCode === null && a.signalCode === null) a.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  attacker.stdout.on('data', (chunk) => (out += String(chunk)));
  attacker.stderr.on('data', (chunk) => (err += String(chunk)));
  const lines = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line);
  await vi.waitFor(() => expect(lines().some((line) => line.ready), err).toBe(true), { timeout: 10_000 });
  return { lines };
}
