// `show` on the bundled bin, run as the installed bin runs it (node with its shebang's V8 options): with
// those options Node 20 compiles each built-in the CLI loads from source (no code cache), so the lookup's
// path must not load the ones it never calls. process.moduleLoadList, read at exit, says which it loaded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';

const RECORD_BUILT_INS = fileURLToPath(new URL('../../helpers/record-built-ins.cjs', import.meta.url));
/**
 * Built-ins a keyless `show` never calls: crypto (a key's HMAC, signing), child_process (commander's
 * executable subcommands, the platform helpers), dgram (child_process loads it), os (dotenv's `~`
 * paths), net (its pipes are written with synchronous writes: src/cli/sync-output.ts), streams,
 * fs/promises and readline (it reads with synchronous calls; stdin is made only when read), and the
 * network clients and servers only the daemon uses. (node:vm it does load: the bin compiles its chunks
 * with their code cache through vm.Script, src/cli/code-cache.ts, which saves more than vm costs.)
 */
const NEVER_LOADED = [
  'crypto',
  'child_process',
  'dgram',
  'os',
  'net',
  'stream',
  'fs/promises',
  'internal/fs/promises',
  'internal/fs/streams',
  'internal/readline/interface',
  'http',
  'https',
  'http2',
  'tls',
  'zlib',
  'dns',
  'worker_threads',
];
/** Node's ES module loader: the bundle is CommonJS (rolldown.config.mjs), so a command that imports no ES package needs none of it. */
const ESM_LOADER = /^internal\/modules\/esm\/(translators|module_job|module_map|resolve|load)$/;

/** `show <id> --json` with its stdout a pipe to this process, or (`toFile`) a file it is redirected to, as `show … > call.json`. */
async function showLoads(dir: string, dataDir: string, id: string, options: { toFile?: boolean } = {}): Promise<{ stdout: string; builtIns: string[] }> {
  const file = join(dir, `built-ins-${id}.txt`);
  const outFile = join(dir, `show-${id}.json`);
  const args = [...binNodeArgs(BUNDLED_CLI_PATH), '--require', RECORD_BUILT_INS, BUNDLED_CLI_PATH, 'show', id, '--json', '--data-dir', dataDir, '--no-env-file'];
  const out = options.toFile ? openSync(outFile, 'w') : 'pipe';
  const child = spawn(process.execPath, args, { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, MEDIAN_DEV_TEST_BUILT_INS_FILE: file }, stdio: ['ignore', out, 'pipe'] });
  if (typeof out === 'number') closeSync(out); // the child has its own copy
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, stderr).toBe(0);
  if (options.toFile) stdout = await readFile(outFile, 'utf8');
  const builtIns = (await readFile(file, 'utf8')).split('\n').flatMap((line) => (line.startsWith('NativeModule ') ? [line.slice('NativeModule '.length)] : []));
  return { stdout, builtIns };
}

describe('show, run as the bin runs', () => {
  it('finds a call by toolCallId and by record id without crypto, child_process, net, streams, fs/promises or the ES module loader', async () => {
    const dir = await useTempDir('median-dev-show-built-ins-');
    const dataDir = join(dir, 'data');
    const recorder = await openRecorder({ dataDir, secrets: [] });
    const original = await recorder.append(makeRecord({ n: 1 }));
    await recorder.append(makeRecord({ n: 2 }));
    const replay = await recorder.append(makeRecord({ n: 3, toolCallId: original.toolCallId, replayOf: original.id }));
    await recorder.close();

    const byToolCallId = await showLoads(dir, dataDir, original.toolCallId);
    expect(JSON.parse(byToolCallId.stdout)).toMatchObject({ id: original.id, replays: [{ id: replay.id }] });
    const byRecordId = await showLoads(dir, dataDir, replay.id);
    expect(JSON.parse(byRecordId.stdout)).toMatchObject({ id: replay.id, replayOf: original.id });
    // Redirected to a file: written as a pipe is, without the SyncWriteStream Node would make (Node's streams).
    const toFile = await showLoads(dir, dataDir, original.toolCallId, { toFile: true });
    expect(JSON.parse(toFile.stdout)).toMatchObject({ id: original.id, replays: [{ id: replay.id }] });
    for (const { builtIns } of [byToolCallId, byRecordId, toFile]) {
      expect(builtIns).toContain('fs'); // the list was read: the lookup reads the store with it
      expect(builtIns.filter((name) => NEVER_LOADED.includes(name))).toEqual([]);
      expect(builtIns.filter((name) => ESM_LOADER.test(name))).toEqual([]);
    }
  }, 30_000);
});
