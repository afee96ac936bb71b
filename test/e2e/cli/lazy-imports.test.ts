import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { useE2eWorld, useTempDir, waitForEventAfter, type E2eWorld } from '../../helpers/e2e-world.js';

const RECORD_IMPORTS = fileURLToPath(new URL('../../helpers/record-imports.mjs', import.meta.url));
/** What only the daemon (and `calls -f`, the TUI) needs: every other command starts without them. */
const HEAVY_PACKAGES = ['blessed', 'ws', 'chokidar', 'http-proxy-3'];

/** The packages (under node_modules) a run loaded, and our own modules, read from the hook's file. */
async function loadedBy(file: string): Promise<{ packages: Set<string>; text: string }> {
  const text = await readFile(file, 'utf8');
  return { packages: new Set([...text.matchAll(/node_modules\/((?:@[^/\s]+\/)?[^/\s]+)/g)].map((m) => m[1]!)), text };
}

function recordingEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `--import ${RECORD_IMPORTS}`, MEDIAN_DEV_TEST_IMPORTS_FILE: file };
}

/** One command beside the world's daemon (its data dir, env file and Median), recorded; resolves with what it loaded. */
async function recordCommand(world: E2eWorld, name: string, argv: string[]): Promise<{ packages: Set<string>; text: string }> {
  const file = join(world.projectDir, `imports-${name}.txt`);
  const cli = spawnCli([...argv, '--data-dir', world.dataDir, '--env-file', world.envFile, '--median-api', world.emulator.url], { cwd: world.projectDir, env: recordingEnv(file) });
  expect(await cli.exited, `${name}: ${cli.stderr()}`).toBe(0);
  return loadedBy(file);
}

describe('median-dev: each command loads only what it uses', () => {
  it('calls loads neither blessed, ws, chokidar nor http-proxy-3', async () => {
    const dir = await useTempDir('median-dev-lazy-calls-');
    const file = join(dir, 'imports.txt');
    const cli = spawnCli(['calls', '--json', '--no-env-file', '--data-dir', join(dir, 'data')], { cwd: dir, env: recordingEnv(file) });
    expect(await cli.exited).toBe(0);
    const { packages } = await loadedBy(file);
    expect(packages.has('commander')).toBe(true); // the hook did record
    for (const name of HEAVY_PACKAGES) expect(packages.has(name), name).toBe(false);
  }, 30_000);

  it('show loads none of the tunnel server, the tunnel or the daemon', async () => {
    const dir = await useTempDir('median-dev-lazy-show-');
    const file = join(dir, 'imports.txt');
    const cli = spawnCli(['show', 'call_nobody', '--json', '--no-env-file', '--data-dir', join(dir, 'data')], { cwd: dir, env: recordingEnv(file) });
    expect(await cli.exited).toBe(1);
    const { text } = await loadedBy(file);
    expect(text).toContain('/src/recorder/'); // the hook did record
    for (const part of ['tunnel-server', 'tunnel', 'daemon', 'proxy']) expect(text.includes(`/src/${part}/`), part).toBe(false);
  }, 30_000);

  it('a running daemon: start --json --no-tui --no-inspector loads no blessed, no ws, no http-proxy-3 (no upgrade came), no inspector server; calls, show, endpoints and doctor none of the daemon', async () => {
    const world = await useE2eWorld();
    const file = join(world.projectDir, 'imports-start.txt');
    const cli = world.start({ args: ['--no-tui', '--no-inspector'], env: recordingEnv(file) });
    const synced = await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);
    const start = await loadedBy(file);
    expect(start.text.includes('/src/proxy/recording-proxy.js'), 'the daemon ran: its proxy was loaded').toBe(true);
    expect(start.packages.has('http-proxy-3'), 'http-proxy-3 waits for a WebSocket upgrade').toBe(false);
    expect(start.packages.has('ws')).toBe(false); // its control channel loads ws at its first client's upgrade only (nobody attached here)
    expect(start.packages.has('blessed')).toBe(false);
    expect(start.text.includes('/src/inspector-server/'), 'inspector server').toBe(false);

    const connect = cli.events().find((e) => e.event === 'call' && e.kind === 'connect');
    const commands: Array<[string, string[], readonly string[]]> = [
      ['calls', ['calls', '--json'], HEAVY_PACKAGES],
      ['show', ['show', String(connect?.id), '--json'], HEAVY_PACKAGES],
      ['endpoints', ['endpoints', '--json'], HEAVY_PACKAGES],
      // doctor asks the running daemon for its state over the control channel (a WebSocket): ws, and nothing else heavy.
      ['doctor', ['doctor', '--json'], ['blessed', 'chokidar', 'http-proxy-3']],
    ];
    for (const [name, argv, absent] of commands) {
      const { packages, text } = await recordCommand(world, name, argv);
      expect(packages.has('commander'), name).toBe(true); // the hook did record
      for (const pkg of absent) expect(packages.has(pkg), `${name} loaded ${pkg}`).toBe(false);
      // The daemon itself (a leaf of its folder, like the key's source label doctor prints, is no daemon), its proxy, the tunnel server.
      for (const path of ['/src/daemon/start-daemon.js', '/src/proxy/', '/src/tunnel-server/']) expect(text.includes(path), `${name} loaded ${path}`).toBe(false);
    }
    expect(synced.url).toEqual(expect.any(String));
    expect(await cli.stop('SIGINT')).toBe(0);
    // Its HTTP requests (the route's looks, Median's API) go through Node's own client: the first fetch would load undici, 40–55 ms of the start.
    const exited = await loadedBy(file);
    expect(exited.text, 'the exit hook did record').toContain('node:internal/deps/');
    expect(exited.text).not.toContain('node:internal/deps/undici');
  }, 90_000);
});
