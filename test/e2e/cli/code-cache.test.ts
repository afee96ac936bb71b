// The bundled bin's V8 code cache (src/cli/code-cache.ts, installed by src/cli/bin-start.ts): `show` saves the cache
// of the chunks it compiled beside them (dist/bin/.code-cache/), the next command's chunks are compiled from it, and
// a cache that is corrupt, stale or cannot be written changes no answer. Each test runs its own copy of the bundle,
// so the suite's other runs of dist/bin do not touch its caches.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { cacheInFile } from '../../../src/cli/code-cache.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';

const RECORD_CODE_CACHE = fileURLToPath(new URL('../../helpers/record-code-cache.cjs', import.meta.url));
const BIN_DIR = join(BUNDLED_CLI_PATH, '..');

/** A copy of the bundle in a fresh folder (without the caches dist/bin may hold), and a store with one record. */
async function useBundleCopy(): Promise<{ dir: string; bin: string; cacheDir: string; dataDir: string; toolCallId: string }> {
  const dir = await useTempDir('median-dev-code-cache-');
  await cp(BIN_DIR, join(dir, 'bin'), { recursive: true, filter: (source) => !source.includes('.code-cache') });
  const dataDir = join(dir, '.median-dev');
  const recorder = await openRecorder({ dataDir });
  const record = await recorder.append(makeRecord({ n: 1 }));
  await recorder.close();
  return { dir, bin: join(dir, 'bin', 'median-dev.js'), cacheDir: join(dir, 'bin', '.code-cache'), dataDir, toolCallId: record.toolCallId };
}

/** Runs the copy as the installed bin runs (its shebang's options); its stdout, and each chunk's compile (see record-code-cache.cjs). */
async function run(copy: Awaited<ReturnType<typeof useBundleCopy>>, argv: string[], nodeArgs: string[] = []): Promise<{ stdout: string; compiles: string[] }> {
  const file = join(copy.dir, `compiles-${Math.random().toString(36).slice(2)}.txt`);
  const args = [...binNodeArgs(BUNDLED_CLI_PATH), ...nodeArgs, '--require', RECORD_CODE_CACHE, copy.bin, ...argv, '--data-dir', copy.dataDir, '--no-env-file'];
  const child = spawn(process.execPath, args, { cwd: copy.dir, env: { PATH: process.env.PATH, HOME: copy.dir, MEDIAN_DEV_TEST_CODE_CACHE_FILE: file }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, stderr).toBe(0);
  const compiles = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { stdout, compiles: compiles.map((line) => line.replace(/-[\w-]{8}\.js /, '.js ')).sort() };
}

describe('the bundled bin’s code cache', () => {
  it('show saves its chunks’ caches (0600, in a 0700 folder); the next show is compiled from them, with the same answers', async () => {
    const copy = await useBundleCopy();
    const first = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(first.compiles).toEqual(['cli.js compiled', 'lookups.js compiled']);
    const caches = await readdir(copy.cacheDir);
    expect(caches.map((name) => name.replace(/-[\w-]{8}\.js\./, '.js.')).sort()).toEqual([`cli.js.${process.versions.v8}.cache`, `lookups.js.${process.versions.v8}.cache`]);
    expect((await stat(copy.cacheDir)).mode & 0o777).toBe(0o700);
    for (const name of caches) expect((await stat(join(copy.cacheDir, name))).mode & 0o777).toBe(0o600);

    const second = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(second.compiles).toEqual(['cli.js used', 'lookups.js used']);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(second.stdout)).toMatchObject({ toolCallId: copy.toolCallId });
    // Every other command compiles its chunks as Node does (it sets a V8 option at run time), and saves none.
    const calls = await run(copy, ['calls', '--json']);
    expect(calls.compiles).toEqual([]);
    expect((JSON.parse(calls.stdout) as Array<{ toolCallId: string }>).map((call) => call.toolCallId)).toEqual([copy.toolCallId]);
    expect((await readdir(copy.cacheDir)).sort()).toEqual(caches.sort());
  }, 60_000);

  it('a cache whose two copies differ is never given to V8; one V8 rejects (other V8 options) is written anew; stale ones are removed', async () => {
    const copy = await useBundleCopy();
    const reference = await run(copy, ['show', copy.toolCallId, '--json']);
    const caches = await readdir(copy.cacheDir);
    const cli = caches.find((name) => name.startsWith('cli-'))!;
    // Bytes flipped in the first copy (a disk fault): given to V8, such a cache made it abort (its checksum is checked in debug builds only).
    const good = await readFile(join(copy.cacheDir, cli));
    await writeFile(join(copy.cacheDir, cli), Buffer.from(good.map((byte, i) => (i > 1_000 && i < 1_100 ? byte ^ 0x5a : byte))));
    await writeFile(join(copy.cacheDir, 'cli-0ldBu1ld.js.11.3.244.8-node.38.cache'), 'an older build’s');
    await writeFile(join(copy.cacheDir, cli.replace(process.versions.v8, '9.9.9.9')), 'another V8’s');

    const again = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(again.stdout).toBe(reference.stdout);
    expect(again.compiles).toEqual(['cli.js compiled', 'lookups.js used']);
    expect((await readdir(copy.cacheDir)).sort()).toEqual(caches.sort());
    expect(cacheInFile(await readFile(join(copy.cacheDir, cli))) !== undefined, 'written anew, whole').toBe(true);
    expect((await run(copy, ['show', copy.toolCallId, '--json'])).compiles).toEqual(['cli.js used', 'lookups.js used']);

    // A V8 option more changes V8's flag hash: V8 rejects the caches, and that run's are saved in their place.
    const otherOptions = await run(copy, ['show', copy.toolCallId, '--json'], ['--stack-size=900']);
    expect(otherOptions.compiles).toEqual(['cli.js rejected', 'lookups.js rejected']);
    expect(otherOptions.stdout).toBe(reference.stdout);
    expect((await run(copy, ['show', copy.toolCallId, '--json'])).compiles).toEqual(['cli.js rejected', 'lookups.js rejected']);
    expect((await run(copy, ['show', copy.toolCallId, '--json'])).compiles).toEqual(['cli.js used', 'lookups.js used']);
  }, 60_000);

  it('where no cache can be written (a file in the folder’s place), show answers as always and saves nothing', async () => {
    const copy = await useBundleCopy();
    await writeFile(copy.cacheDir, 'not a folder');
    const first = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ toolCallId: copy.toolCallId });
    expect((await run(copy, ['show', copy.toolCallId, '--json'])).compiles).toEqual(['cli.js compiled', 'lookups.js compiled']);
    expect(await readFile(copy.cacheDir, 'utf8')).toBe('not a folder');
  }, 60_000);
});
