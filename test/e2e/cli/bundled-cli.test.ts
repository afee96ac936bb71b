// The CLI as users run it: package.json's bin, the bundle `npm run build` writes to dist/bin/ with
// rolldown (rolldown.config.mjs). The rest of the suite runs the unbundled dist/src/cli/main.js; these
// tests run the bundle itself, so what only bundling changes is proved here: the shebang carried
// over, files found from the package's root (the inspector's page), each import() still lazy.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { BUNDLED_CLI_PATH, spawnCli } from '../../helpers/cli-harness.js';
import { isEvent, useE2eWorld, useTempDir, waitForEventAfter, type E2eWorld } from '../../helpers/e2e-world.js';
import { pasteCommand } from '../../helpers/paste-command.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useDemo } from '../../helpers/use-demo.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECORD_IMPORTS = fileURLToPath(new URL('../../helpers/record-imports.mjs', import.meta.url));
const MARK_CHUNK_LOADS = fileURLToPath(new URL('../../helpers/mark-chunk-loads.cjs', import.meta.url));
/** What only the daemon (and `calls -f`, the TUI) needs: a lookup starts without them. */
const HEAVY_PACKAGES = ['blessed', 'ws', 'chokidar', 'http-proxy-3'];
/** Bundled into dist/bin/ (rolldown.config.mjs): never loaded from node_modules. */
const BUNDLED_PACKAGES = ['commander', 'dotenv'];

/** The files of ours (under dist/) and the packages a run loaded, read from the import hook's file. */
async function loadedBy(file: string): Promise<{ ours: Set<string>; packages: Set<string> }> {
  const text = await readFile(file, 'utf8');
  const urls = text.split('\n').map((line) => line.split(' ')[0]!);
  const ours = new Set(urls.filter((url) => url.includes('/dist/') && !url.includes('/node_modules/')).map((url) => url.replace(/^.*\/dist\//, 'dist/').replace(/ \(required\)$/, '')));
  return { ours, packages: new Set([...text.matchAll(/node_modules\/((?:@[^/\s]+\/)?[^/\s]+)/g)].map((m) => m[1]!)) };
}

/** A bundled command beside the world's daemon (its data dir, env file and Median), its loads recorded. */
async function recordBundled(world: E2eWorld, name: string, argv: string[]) {
  const file = join(world.projectDir, `imports-${name}.txt`);
  const cli = spawnCli([...argv, '--data-dir', world.dataDir, '--env-file', world.envFile, '--median-api', world.emulator.url], {
    cwd: world.projectDir,
    env: { NODE_OPTIONS: `--import ${RECORD_IMPORTS}`, MEDIAN_DEV_TEST_IMPORTS_FILE: file },
    entry: BUNDLED_CLI_PATH,
  });
  expect(await cli.exited, `${name}: ${cli.stderr()}`).toBe(0);
  return { cli, ...(await loadedBy(file)) };
}

describe('the bundled CLI (package.json bin)', () => {
  it('is the bin, keeps main.ts shebang line, and answers --help and --version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; version: string };
    expect(join(ROOT, pkg.bin['median-dev']!)).toBe(BUNDLED_CLI_PATH);
    const firstLine = async (path: string) => (await readFile(path, 'utf8')).split('\n', 1)[0];
    expect(await firstLine(BUNDLED_CLI_PATH)).toBe(await firstLine(join(ROOT, 'src/cli/main.ts')));

    const dir = await useTempDir('median-dev-bundle-help-');
    const help = spawnCli(['--help'], { cwd: dir, entry: BUNDLED_CLI_PATH });
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: median-dev /);
    for (const command of ['start', 'calls', 'show', 'doctor']) expect(help.stdout()).toContain(`  ${command}`);
    const version = spawnCli(['--version'], { cwd: dir, entry: BUNDLED_CLI_PATH });
    expect(await version.exited).toBe(0);
    expect(version.stdout().trim()).toBe(pkg.version);
  }, 30_000);

  it('start --json syncs with the inspector page served; show and calls then load no daemon chunk and no heavy package', async () => {
    const world = await useE2eWorld();
    const run = world.start({ args: ['--inspector-port', '0'], entry: BUNDLED_CLI_PATH });
    const inspector = await run.waitForEvent((e) => isEvent(e, 'inspector'), 30_000);
    await waitForEventAfter(run, 0, 'endpoint', { action: 'synced' }, 30_000);
    // The page is found from the package's root, wherever the bundle put the inspector server's code.
    const page = await fetch(`${inspector.url as string}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/assets\/[^"]+\.js"/);

    const before = run.events().length;
    await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    const call = await waitForEventAfter(run, before, 'call', { tool: 'orderStatus' });

    const show = await recordBundled(world, 'show', ['show', String(call.toolCallId), '--json']);
    expect(JSON.parse(show.cli.stdout())).toMatchObject({ id: call.id, toolCallId: call.toolCallId, tool: 'orderStatus' });
    const calls = await recordBundled(world, 'calls', ['calls', '--json']);
    expect((JSON.parse(calls.cli.stdout()) as Array<{ id: string }>).map((c) => c.id)).toContain(call.id);
    for (const [name, loaded] of [['show', show], ['calls', calls]] as const) {
      expect(loaded.ours.has('dist/bin/median-dev.js'), name).toBe(true); // the hook did record
      for (const pkg of [...HEAVY_PACKAGES, ...BUNDLED_PACKAGES]) expect(loaded.packages.has(pkg), `${name} loaded ${pkg}`).toBe(false);
      const files = [...loaded.ours];
      expect(files.every((f) => f.startsWith('dist/bin/')), `${name}: ${files.join(' ')}`).toBe(true);
      expect(files.some((f) => /\/chunks\/(daemon|parts|start)-/.test(f)), `${name}: ${files.join(' ')}`).toBe(false);
      // A handful of files instead of the ~70 modules the unbundled CLI loads for a lookup.
      expect(files.length, `${name}: ${files.join(' ')}`).toBeLessThanOrEqual(5);
    }
    expect(await run.stop('SIGINT')).toBe(0);
  }, 90_000);

  it("start --json prints the key's line before it loads the daemon's chunk (a require() that holds the main thread)", async () => {
    const world = await useE2eWorld();
    const run = world.start({ args: ['--no-inspector'], entry: BUNDLED_CLI_PATH, env: { NODE_OPTIONS: `--require ${MARK_CHUNK_LOADS}` } });
    await waitForEventAfter(run, 0, 'endpoint', { action: 'synced' }, 30_000);
    const events = run.events();
    const keyLine = events.findIndex((e) => isEvent(e, 'log') && String(e.message).startsWith('MEDIAN_KEY '));
    const daemonChunk = events.findIndex((e) => isEvent(e, 'test-chunk-loading', { chunk: 'daemon' }));
    expect(daemonChunk, 'the hook did mark the daemon chunk').toBeGreaterThan(-1);
    expect(keyLine).toBeGreaterThan(-1);
    expect(keyLine).toBeLessThan(daemonChunk);
    expect(await run.stop('SIGINT')).toBe(0);
  }, 90_000);

  it('forwards a WebSocket upgrade to the dev server (http-proxy-3, loaded by require() in a promise from the CommonJS bundle at the first one)', async () => {
    const world = await useE2eWorld();
    const devServer = await useHttpServer((_req, res) => res.end());
    const wss = new WebSocketServer({ server: devServer.server });
    useTeardown(wss, (w) => new Promise((resolve) => w.close(resolve)));
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo:${String(data)}`)));
    // No child command: the dev server is this one, named by the last --target.
    const run = spawnCli(world.startArgs(['--no-inspector', '--target', devServer.url]), { cwd: world.projectDir, entry: BUNDLED_CLI_PATH, env: { MEDIAN_API_URL: world.emulator.url } });
    const proxy = await run.waitForEvent((e) => isEvent(e, 'proxy'), 30_000);

    const client = new WebSocket(`${String(proxy.url).replace('http', 'ws')}/_next/webpack-hmr`);
    useTeardown(client, (c) => c.terminate());
    await once(client, 'open');
    client.send('hi');
    const [reply] = (await once(client, 'message')) as [Buffer];
    expect(String(reply)).toBe('echo:hi');
    expect(await run.stop('SIGINT')).toBe(0);
  }, 60_000);

  it('demo finds its example route from the package root, and its second-terminal line runs the bundle as printed', async () => {
    const demo = await useDemo({ intervalMs: 200, entry: BUNDLED_CLI_PATH });
    const answered = await demo.cli.waitForEvent((e) => isEvent(e, 'call', { kind: 'tool-call', verdict: 'answered' }), 30_000);
    const tryIt = String(demo.cli.events().find((e) => isEvent(e, 'log') && String(e.message).startsWith('From another terminal'))?.message);
    const line = tryIt.slice(tryIt.indexOf(': ') + 2);
    expect(line).toMatch(/^node \S*dist\/bin\/median-dev\.js calls /);
    // Pasted in the demo's project folder (its cwd), as a second terminal there would.
    const pasted = await pasteCommand(`${line} --json`, join(demo.dataDir, 'my-shop'));
    expect(pasted.code, pasted.stderr).toBe(0);
    expect((JSON.parse(pasted.stdout) as Array<{ id: string }>).map((c) => c.id)).toContain(answered.id);
  }, 90_000);
});
