import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, type SpawnedCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * Issue 18 item 11: two `start`s in one data dir both ran (about 1 in 8
 * tries): both listened, control.json named one, two segments were written.
 * The data dir's lock (daemon.lock: exclusive create, holder named by pid and
 * process start time) lets exactly one run; a lock left by a killed daemon,
 * or naming a pid reused by another process, is stale.
 */
function start(dataDir: string, cwd: string): SpawnedCli {
  return spawnCli(['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', 'http://127.0.0.1:9', '--data-dir', dataDir], { cwd });
}

/** Resolves with 'running' once the start is up (its tools URL set, signal handlers in place), or with its exit code. */
function outcome(cli: SpawnedCli): Promise<'running' | number | null> {
  return Promise.race([cli.waitForEvent((e) => e.event === 'tools-url', 20_000).then(() => 'running' as const, () => cli.exited), cli.exited]);
}

describe('item 11: one daemon per data dir', () => {
  it('of two starts racing in one data dir exactly one runs, the other is daemon_already_running', async () => {
    const dir = await useTempDir('median-dev-lock-');
    for (let round = 0; round < 6; round++) {
      const dataDir = join(dir, `data-${round}`);
      const pair = [start(dataDir, dir), start(dataDir, dir)];
      const outcomes = await Promise.all(pair.map(outcome));
      expect([...outcomes].sort()).toEqual([1, 'running']);
      const loser = pair[outcomes.indexOf(1)]!;
      expect(loser.events()).toContainEqual(expect.objectContaining({ event: 'error', code: 'daemon_already_running' }));
      for (const cli of pair) await cli.stop();
      // close() removed the lock.
      expect(await readdir(dataDir)).not.toContain('daemon.lock');
    }
  }, 120_000);

  it('a lock left by a kill -9, or naming a pid another process now has, does not block start', async () => {
    const dir = await useTempDir('median-dev-lock-');
    const dataDir = join(dir, '.median-dev');
    const first = start(dataDir, dir);
    await first.waitForEvent((e) => e.event === 'proxy');
    expect(await readdir(dataDir)).toContain('daemon.lock');
    first.child.kill('SIGKILL');
    await first.exited;
    const second = start(dataDir, dir);
    expect(await outcome(second)).toBe('running');
    await second.stop();

    // The pid is alive, but it is another process than the one that took the lock.
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    useTeardown(unrelated, (c) => c.kill('SIGKILL'));
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'daemon.lock'), JSON.stringify({ pid: unrelated.pid, identity: 'linux-start:1', token: 'x'.repeat(32), at: new Date().toISOString() }), { mode: 0o600 });
    const third = start(dataDir, dir);
    expect(await outcome(third)).toBe('running');
    await third.stop();
  }, 60_000);
});
