import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRunningDaemon } from '../../src/control/index.js';
import { spawnCli } from '../helpers/cli-harness.js';
import { freePort, useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * Break 5: a control.json naming a live unrelated process (a reused pid)
 * made `start` refuse with daemon_already_running. The daemon is proven alive
 * by asking it on its control channel, not by its pid.
 */
describe('break 5: a reused pid in control.json', () => {
  it('does not count as a running daemon, and start replaces the file', async () => {
    const dir = await useTempDir('median-dev-pid-');
    const dataDir = join(dir, '.median-dev');
    await mkdir(dataDir, { recursive: true });
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    useTeardown(unrelated, (c) => c.kill('SIGKILL'));
    const stale = { port: await freePort(), token: 'a'.repeat(64), pid: unrelated.pid, instanceId: 'gone', startedAt: new Date().toISOString(), proxyUrl: 'http://127.0.0.1:1' };
    await writeFile(join(dataDir, 'control.json'), JSON.stringify(stale), { mode: 0o600 });

    expect(await findRunningDaemon(dataDir)).toBeUndefined();

    const target = await useHttpServer((_req, res) => res.end('ok'));
    const cli = spawnCli(
      ['start', '--json', '--no-tui', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', target.url, '--data-dir', dataDir],
      { cwd: dir },
    );
    await cli.waitForEvent((e) => e.event === 'proxy');
    expect(cli.events().filter((e) => e.event === 'error' && e.code === 'daemon_already_running')).toEqual([]);
    const written = JSON.parse(await readFile(join(dataDir, 'control.json'), 'utf8')) as { pid: number; token: string };
    expect(written.pid).toBe(cli.child.pid);
    expect(await findRunningDaemon(dataDir)).toMatchObject({ pid: cli.child.pid });

    // A second start now meets a daemon that answers: refused, with what to do.
    const second = spawnCli(
      ['start', '--json', '--no-tui', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', target.url, '--data-dir', dataDir],
      { cwd: dir },
    );
    expect(await second.exited).toBe(1);
    expect(second.events()).toContainEqual(expect.objectContaining({ code: 'daemon_already_running', hint: expect.stringContaining(`kill ${cli.child.pid}`) }));
    await cli.stop();
  });
});
