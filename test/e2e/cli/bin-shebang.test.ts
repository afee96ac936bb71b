import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binArgv, binNodeArgs, nodeArgsOfShebang } from '../../../bench/bin-node-args.js';
import { BUNDLED_CLI_PATH, CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

const MAIN_SOURCE = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
const firstLine = (text: string): string => text.split('\n', 1)[0]!;

describe("the bin's shebang carries node's options", () => {
  it.each([
    ['#!/usr/bin/env node', []],
    ['#!/usr/bin/env -S node --max-semi-space-size=2 --liftoff-only', ['--max-semi-space-size=2', '--liftoff-only']],
    ['#!/bin/sh', []],
    ['// no shebang', []],
  ])('%s', (line, args) => {
    expect(nodeArgsOfShebang(line)).toEqual(args);
  });

  it('the builds keep the source line: a small young generation, one V8 worker thread', async () => {
    const source = firstLine(await readFile(MAIN_SOURCE, 'utf8'));
    expect(firstLine(await readFile(CLI_PATH, 'utf8'))).toBe(source);
    expect(firstLine(await readFile(BUNDLED_CLI_PATH, 'utf8'))).toBe(source);
    expect(source.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    const args = binNodeArgs(BUNDLED_CLI_PATH);
    expect(args.some((arg) => /^--max-semi-space-size=\d+$/.test(arg))).toBe(true);
    expect(args).toContain('--v8-pool-size=1');
    expect(binArgv(BUNDLED_CLI_PATH, ['demo'])).toEqual([...args, BUNDLED_CLI_PATH, 'demo']);
  });

  // 1 MiB semi-spaces meant a scavenge every ~16 calls: in the p99 at 250 calls/s, and 4× the scavenge CPU; 4 MiB grew the soak's RSS
  // ~5 MiB more than 2 at the same CPU and p99 (src/cli/main.ts). 16 MiB is Node's RSS-hungry default.
  it("node run with the bin's options keeps 2 MiB semi-spaces: more than 1, less than Node's 16", async () => {
    const script = 'let k = []; for (let i = 0; i < 300000; i++) { k.push({ a: "x" + i }); if (k.length > 64) k = []; } ' +
      'process.stdout.write(String(require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size));';
    const child = spawn(process.execPath, [...binNodeArgs(BUNDLED_CLI_PATH), '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    // new_space is two semi-spaces.
    expect(Number(out)).toBe(2 * 2 * 1024 * 1024);
  }, 20_000);

  // Linux before 5.1 reads 127 characters of the line (BINPRM_BUF_SIZE 128) and would hand node a cut option.
  it('the line fits in the 127 characters every kernel reads', async () => {
    const source = firstLine(await readFile(MAIN_SOURCE, 'utf8'));
    expect(Buffer.byteLength(source)).toBeLessThanOrEqual(127);
  });

  // Each thread that runs TurboFan's compile jobs keeps a malloc arena that only grows (src/cli/main.ts): node run
  // with the bin's options has three threads fewer than node's default of four V8 workers.
  it.runIf(process.platform === 'linux')("node run with the bin's options starts one V8 worker thread, not four", async () => {
    const script = 'process.stdout.write(String(require("node:fs").readdirSync("/proc/self/task").length));';
    const threads = async (args: string[]): Promise<number> => {
      const child = spawn(process.execPath, [...args, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      return Number(out);
    };
    const plain = await threads([]);
    expect(await threads(binNodeArgs(BUNDLED_CLI_PATH))).toBe(plain - 3);
  }, 20_000);

  // The kernel and env -S run it: what node got on its command line is what the benches add.
  it.runIf(process.platform !== 'win32')('run as a file, node gets those options', async () => {
    const dir = await useTempDir('median-dev-shebang-');
    const preload = join(dir, 'print-exec-argv.cjs');
    await writeFile(preload, 'process.stdout.write(JSON.stringify(process.execArgv)); process.exit(0);\n');
    // The build marks it executable, as npm does for a bin it installs.
    expect((await stat(BUNDLED_CLI_PATH)).mode & 0o111).toBe(0o111);
    const child = spawn(BUNDLED_CLI_PATH, ['--version'], { env: { PATH: process.env.PATH, NODE_OPTIONS: `--require ${preload}` }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(binNodeArgs(BUNDLED_CLI_PATH));
  }, 20_000);
});
