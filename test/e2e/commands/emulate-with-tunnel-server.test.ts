import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, freePort, useTempDir } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A printed command pasted into a shell of the project (its own output collected), stopped when the test ends. */
function paste(line: string, cwd: string, env: Record<string, string> = {}) {
  const child = spawn('sh', ['-c', `exec ${line}`], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Waited for: a daemon still shutting down writes its data dir while the project folder is removed (ENOTEMPTY).
  useTeardown(child, async (c) => {
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGINT');
    const killLater = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killLater);
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += String(c)));
  child.stderr.on('data', (c) => (err += String(c)));
  return { out: () => out, err: () => err, exited };
}

function lineAfter(text: string, marker: string): string {
  const line = text.split('\n').find((l) => l.includes(marker));
  if (!line) throw new Error(`No line with "${marker}" in:\n${text}`);
  return line.trim();
}

describe('median-dev emulate --with-tunnel-server: one\'s own app offline with nothing else', () => {
  it('the banner\'s start (npm run dev) syncs through its tunnel server, and its emulate call reaches the route', async () => {
    const projectDir = await useTempDir('median-dev-own-app-');
    const routePort = await freePort();
    await writeFile(join(projectDir, 'package.json'), JSON.stringify({ name: 'my-shop', private: true, scripts: { dev: `node ${JSON.stringify(EXAMPLE_ROUTE)}` } }));
    const emulate = spawnCli(['emulate', '--port', '0', '--with-tunnel-server', '0'], { cwd: projectDir });
    await vi.waitFor(() => expect(emulate.stdout()).toContain('Ctrl-C stops the emulator.'), { timeout: 15_000 });
    const banner = emulate.stdout();
    expect(banner).toMatch(/tunnel \*\.lt\.median\.test → http:\/\/127\.0\.0\.1:\d+ \(its own localtunnel server/);

    // Step 1 as printed; only where this test's dev server listens is added (port 3000 is not ours to take here).
    const startLine = lineAfter(banner, ' start ').replace(' -- npm run dev', ` --target http://127.0.0.1:${routePort} --port 0 --no-inspector -- npm run dev`);
    expect(startLine).toContain('--tunnel-host http://127.0.0.1:');
    const start = paste(startLine, projectDir, { PORT: String(routePort), HOST: '127.0.0.1' });
    await vi.waitFor(() => expect(start.out()).toMatch(/endpoint synced .*lt\.median\.test\/api\/median/), { timeout: 45_000, interval: 200 });

    // Step 2 as printed, the tool named and the optional input left out.
    const callLine = lineAfter(banner, ' emulate call ').replace('<tool>', 'orderStatus').replace(/ \[--input .*\]$/, '');
    const call = paste(callLine, projectDir);
    expect(await call.exited, call.err()).toBe(0);
    expect(call.out()).toContain('The agent sees:');
    await vi.waitFor(() => expect(start.out()).toMatch(/orderStatus\s+200 answered/), { timeout: 15_000, interval: 200 });
    expect(await emulate.stop('SIGINT')).toBe(0);
  }, 120_000);
});
