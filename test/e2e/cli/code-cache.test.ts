// The bundled bin's V8 code cache (src/cli/code-cache.ts, installed by src/cli/bin-start.ts): a command saves the cache
// of the chunks it compiled beside them (dist/bin/.code-cache/), one kind per kind of run (`show`, `start`, the
// others), the next command of that kind has its chunks compiled from it, and
// a cache that is corrupt, stale or cannot be written changes no answer. Each test runs its own copy of the bundle,
// so the suite's other runs of dist/bin do not touch its caches.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { cacheInFile } from '../../../src/cli/code-cache.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { WebSocket, WebSocketServer } from 'ws';
import { makeRecord } from '../../helpers/make-record.js';

const RECORD_CODE_CACHE = fileURLToPath(new URL('../../helpers/record-code-cache.cjs', import.meta.url));
const BIN_DIR = join(BUNDLED_CLI_PATH, '..');
const COPIES_DIR = join(BIN_DIR, '..', '.test-bundle-copies');

/**
 * A copy of the bundle in a fresh folder (without the caches dist/bin may hold), and a store with one record. The
 * copy is under dist/ (removed when the test ends), where its chunks find the packages they load (the daemon's).
 */
async function useBundleCopy(): Promise<{ dir: string; bin: string; cacheDir: string; dataDir: string; toolCallId: string }> {
  await mkdir(COPIES_DIR, { recursive: true });
  const dir = useTeardown(await mkdtemp(join(COPIES_DIR, 'code-cache-')), (made) => rm(made, { recursive: true, force: true }));
  await cp(BIN_DIR, join(dir, 'bin'), { recursive: true, filter: (source) => !source.includes('.code-cache') });
  const dataDir = join(dir, '.median-dev');
  const recorder = await openRecorder({ dataDir });
  const record = await recorder.append(makeRecord({ n: 1 }));
  await recorder.close();
  return { dir, bin: join(dir, 'bin', 'median-dev.js'), cacheDir: join(dir, 'bin', '.code-cache'), dataDir, toolCallId: record.toolCallId };
}

/**
 * Runs the copy as the installed bin runs (its shebang's options); its stdout, and each chunk's compile (see
 * record-code-cache.cjs). `stop`: a long-running command, sent SIGINT once its stdout holds `at` (and `first` ran).
 */
async function run(
  copy: Awaited<ReturnType<typeof useBundleCopy>>,
  argv: string[],
  nodeArgs: string[] = [],
  stop?: { at: string; first?: (stdout: string) => Promise<void> },
): Promise<{ stdout: string; compiles: string[] }> {
  const file = join(copy.dir, `compiles-${Math.random().toString(36).slice(2)}.txt`);
  const args = [...binNodeArgs(BUNDLED_CLI_PATH), ...nodeArgs, '--require', RECORD_CODE_CACHE, copy.bin, ...argv, '--data-dir', copy.dataDir, '--no-env-file'];
  const child = spawn(process.execPath, args, { cwd: copy.dir, env: { PATH: process.env.PATH, HOME: copy.dir, MEDIAN_DEV_TEST_CODE_CACHE_FILE: file }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let isStopping = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stop === undefined || isStopping || !stdout.includes(stop.at)) return;
    isStopping = true; // once: a second SIGINT exits at once
    void (stop.first ?? (async () => undefined))(stdout).finally(() => child.kill('SIGINT'));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  expect(code, stderr).toBe(0);
  expect(stderr).not.toMatch(/ExperimentalWarning/);
  const compiles = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { stdout, compiles: compiles.map((line) => line.replace(/-[\w-]{8}\.js /, '.js ')).sort() };
}

describe('the bundled bin’s code cache', () => {
  it('show saves its chunks’ caches (0600, in a 0700 folder); the next show is compiled from them, with the same answers', async () => {
    const copy = await useBundleCopy();
    const first = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(first.compiles).toEqual(['cli.js compiled', 'lookups.js compiled']);
    const caches = await readdir(copy.cacheDir);
    expect(caches.map((name) => name.replace(/-[\w-]{8}\.js\./, '.js.')).sort()).toEqual([`cli.js.${process.versions.v8}.show.cache`, `lookups.js.${process.versions.v8}.show.cache`]);
    expect((await stat(copy.cacheDir)).mode & 0o777).toBe(0o700);
    for (const name of caches) expect((await stat(join(copy.cacheDir, name))).mode & 0o777).toBe(0o600);

    const second = await run(copy, ['show', copy.toolCallId, '--json']);
    expect(second.compiles).toEqual(['cli.js used', 'lookups.js used']);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(second.stdout)).toMatchObject({ toolCallId: copy.toolCallId });
    // Another kind of command (the chunks it shares with show, compiled for other functions) keeps caches of its own
    // beside show's, and is compiled from them the next time; show's stay as they were.
    const calls = await run(copy, ['calls', '--json']);
    expect(calls.compiles).toEqual(['cli.js compiled', 'lookups.js compiled']);
    expect((JSON.parse(calls.stdout) as Array<{ toolCallId: string }>).map((call) => call.toolCallId)).toEqual([copy.toolCallId]);
    const withCalls = await readdir(copy.cacheDir);
    expect(withCalls.filter((name) => name.endsWith('.other.cache'))).toHaveLength(2);
    expect(withCalls.filter((name) => name.endsWith('.show.cache')).sort()).toEqual(caches.sort());
    const callsAgain = await run(copy, ['calls', '--json']);
    expect(callsAgain.compiles).toEqual(['cli.js used', 'lookups.js used']);
    expect(callsAgain.stdout).toBe(calls.stdout);
    expect((await run(copy, ['show', copy.toolCallId, '--json'])).compiles).toEqual(['cli.js used', 'lookups.js used']);
  }, 60_000);

  it('a cache whose two copies differ is never given to V8; one V8 rejects (other V8 options) is written anew; stale ones are removed', async () => {
    const copy = await useBundleCopy();
    const reference = await run(copy, ['show', copy.toolCallId, '--json']);
    const caches = await readdir(copy.cacheDir);
    const cli = caches.find((name) => name.startsWith('cli-'))!;
    // Bytes flipped in the first copy (a disk fault): given to V8, such a cache made it abort (its checksum is checked in debug builds only).
    const good = await readFile(join(copy.cacheDir, cli));
    await writeFile(join(copy.cacheDir, cli), Buffer.from(good.map((byte, i) => (i > 1_000 && i < 1_100 ? byte ^ 0x5a : byte))));
    await writeFile(join(copy.cacheDir, 'cli-0ldBu1ld.js.11.3.244.8-node.38.show.cache'), 'an older build’s');
    await writeFile(join(copy.cacheDir, cli.replace('.show.cache', '.cache')), 'named as no cache is now (before the kinds)');
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

  it('start keeps caches of its own for every chunk it loads (the daemon’s among them); the next start, compiled from them, loads a package lazily (a WebSocket upgrade)', async () => {
    const copy = await useBundleCopy();
    const devServer = await useHttpServer((_req, res) => res.end());
    const wss = useTeardown(new WebSocketServer({ server: devServer.server }), (w) => new Promise((resolve) => w.close(resolve)));
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo:${String(data)}`)));
    // The daemon without a tunnel, a dev server of its own or the inspector: its chunks load, and SIGINT stops it once its proxy listens.
    const argv = ['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--target', devServer.url];
    const first = await run(copy, argv, [], { at: '"event":"proxy"' });
    expect(first.compiles).toContain('daemon.js compiled');
    expect(first.compiles.every((line) => line.endsWith(' compiled')), first.compiles.join(', ')).toBe(true);
    const caches = await readdir(copy.cacheDir);
    expect(caches.length).toBe(first.compiles.length);
    expect(caches.every((name) => name.endsWith(`.${process.versions.v8}.start.cache`)), caches.join(', ')).toBe(true);
    // http-proxy-3 is loaded at the first upgrade, from a chunk compiled from its cache: no import() there (Node 20 loses
    // a cached script's dynamic-import callback), and no warning printed for one.
    let reply = '';
    const second = await run(copy, argv, [], {
      at: '"event":"proxy"',
      first: async (stdout) => {
        const proxyUrl = String((JSON.parse(stdout.split('\n').find((line) => line.includes('"event":"proxy"'))!) as { url: string }).url);
        const client = useTeardown(new WebSocket(`${proxyUrl.replace('http', 'ws')}/_next/webpack-hmr`), (c) => c.terminate());
        await once(client, 'open');
        client.send('hi');
        reply = String(((await once(client, 'message')) as [Buffer])[0]);
      },
    });
    expect(reply).toBe('echo:hi');
    expect(second.compiles).toContain('daemon.js used');
    expect(second.compiles.every((line) => line.endsWith(' used')), second.compiles.join(', ')).toBe(true);
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
