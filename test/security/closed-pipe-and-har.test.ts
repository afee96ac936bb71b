import { spawn } from 'node:child_process';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, runCliInProcess } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { makeRecord } from '../helpers/make-record.js';

/** Runs the built CLI with its stdout closed by the reader before it writes (as `| head -0` does). */
function runWithClosedStdout(argv: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    child.stdout.destroy(); // the reader is gone: every write gets EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after 15 s; stderr: ${stderr}`));
    }, 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

async function useStore(): Promise<{ dir: string; dataDir: string; toolCallId: string }> {
  const dir = await useTempDir('median-dev-pipe-');
  const dataDir = join(dir, '.median-dev');
  const record = makeRecord({});
  await mkdir(join(dataDir, 'calls'), { recursive: true });
  await writeFile(join(dataDir, 'calls', 'calls-000001.jsonl'), `${JSON.stringify(record)}\n`);
  return { dir, dataDir, toolCallId: record.toolCallId };
}

describe('break 12: a closed stdout ends the command quietly with status 0', () => {
  it.each([
    ['--help', () => ['--help']],
    ['show <id>', (s: { dataDir: string; toolCallId: string }) => ['show', s.toolCallId, '--data-dir', s.dataDir]],
    ['calls --json', (s: { dataDir: string }) => ['calls', '--json', '--data-dir', s.dataDir]],
  ])('%s', async (_name, argv) => {
    const store = await useStore();
    const { code, stderr } = await runWithClosedStdout(argv(store), store.dir);
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(0);
  });
});

describe('break 10: HAR export', () => {
  it.runIf(process.platform !== 'win32')('makes an existing 0644 file 0600', async () => {
    const store = await useStore();
    const file = join(store.dir, 'calls.har');
    await writeFile(file, 'old', { mode: 0o644 });
    const run = await runCliInProcess(['export', '--har', file, '--data-dir', store.dataDir], { cwd: store.dir });
    expect(run.code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(store.dir)).sort()).toEqual(['.median-dev', 'calls.har']);
  });

  it('writes to standard output for --har -, and no file named -', async () => {
    const store = await useStore();
    const run = await runCliInProcess(['export', '--har', '-', '--data-dir', store.dataDir], { cwd: store.dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ log: { version: '1.2', entries: [expect.any(Object)] } });
    expect(await readdir(store.dir)).toEqual(['.median-dev']);
  });
});
