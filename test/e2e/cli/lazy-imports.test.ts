import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { useE2eWorld, useTempDir, waitForEventAfter } from '../../helpers/e2e-world.js';

const RECORD_IMPORTS = fileURLToPath(new URL('../../helpers/record-imports.mjs', import.meta.url));

/** The packages (under node_modules) a run resolved, read from the hook's file. */
async function packagesLoaded(file: string): Promise<Set<string>> {
  const text = await readFile(file, 'utf8');
  return new Set([...text.matchAll(/node_modules\/((?:@[^/\s]+\/)?[^/\s]+)/g)].map((m) => m[1]!));
}

function recordingEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `--import ${RECORD_IMPORTS}`, MEDIAN_DEV_TEST_IMPORTS_FILE: file };
}

describe('median-dev: each command loads only what it uses', () => {
  it('calls loads neither blessed, ws, chokidar nor http-proxy-3', async () => {
    const dir = await useTempDir('median-dev-lazy-calls-');
    const file = join(dir, 'imports.txt');
    const cli = spawnCli(['calls', '--json', '--no-env-file', '--data-dir', join(dir, 'data')], { cwd: dir, env: recordingEnv(file) });
    expect(await cli.exited).toBe(0);
    const loaded = await packagesLoaded(file);
    expect(loaded.has('commander')).toBe(true); // the hook did record
    for (const name of ['blessed', 'ws', 'chokidar', 'http-proxy-3']) expect(loaded.has(name), name).toBe(false);
  }, 30_000);

  it('show loads none of the tunnel server, the tunnel or the daemon', async () => {
    const dir = await useTempDir('median-dev-lazy-show-');
    const file = join(dir, 'imports.txt');
    const cli = spawnCli(['show', 'call_nobody', '--json', '--no-env-file', '--data-dir', join(dir, 'data')], { cwd: dir, env: recordingEnv(file) });
    expect(await cli.exited).toBe(1);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('/src/recorder/'); // the hook did record
    for (const part of ['tunnel-server', 'tunnel', 'daemon', 'proxy']) expect(text.includes(`/src/${part}/`), part).toBe(false);
  }, 30_000);

  it('start --json never loads blessed', async () => {
    const world = await useE2eWorld();
    const file = join(world.projectDir, 'imports.txt');
    const cli = world.start({ env: recordingEnv(file) });
    await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(await cli.stop('SIGINT')).toBe(0);
    const loaded = await packagesLoaded(file);
    expect(loaded.has('http-proxy-3')).toBe(true); // the daemon ran: its proxy was loaded
    expect(loaded.has('blessed')).toBe(false);
  }, 60_000);
});
