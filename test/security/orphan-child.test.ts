import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noteChild, reapOrphanChild } from '../../src/child/orphan-child.js';
import { isProcessGroupAlive } from '../../src/platform/index.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useTeardown } from '../helpers/use-teardown.js';

/** A long-running process leading its own group, like the dev server the daemon starts; killed when the test ends. */
function useSleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  return useTeardown(child, (c) => {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  });
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve));
}

/**
 * Break 4: copying one project's child.json into another data dir made the
 * start there kill the first daemon's live dev server. Only a child whose
 * owning daemon is provably dead, noted in this very data dir, is stopped.
 */
describe.runIf(process.platform === 'linux')('break 4: orphan clean-up', () => {
  it('leaves alone a child whose daemon is alive, in its own data dir and in one it was copied to', async () => {
    const dir = await useTempDir('median-dev-orphan-');
    const [first, second] = [join(dir, 'a', '.median-dev'), join(dir, 'b', '.median-dev')];
    await mkdir(first, { recursive: true });
    await mkdir(second, { recursive: true });
    const devServer = useSleeper();
    // This test process plays the first daemon: alive.
    await noteChild(first, { pid: devServer.pid!, ownerPid: process.pid, command: ['npm', 'run', 'dev'] });
    await copyFile(join(first, 'child.json'), join(second, 'child.json'));

    expect(await reapOrphanChild(second)).toBeUndefined();
    expect(await reapOrphanChild(first)).toBeUndefined();
    expect(isProcessGroupAlive(devServer.pid!)).toBe(true);
    expect(JSON.parse(await readFile(join(first, 'child.json'), 'utf8'))).toMatchObject({ pid: devServer.pid, owner: { pid: process.pid } });
  });

  it('stops the child of a daemon that died, in the data dir it was noted in only', async () => {
    const dir = await useTempDir('median-dev-orphan-');
    const [own, copy] = [join(dir, 'a', '.median-dev'), join(dir, 'b', '.median-dev')];
    await mkdir(own, { recursive: true });
    await mkdir(copy, { recursive: true });
    const daemon = useSleeper();
    const devServer = useSleeper();
    await noteChild(own, { pid: devServer.pid!, ownerPid: daemon.pid!, command: ['npm', 'run', 'dev'] });
    await copyFile(join(own, 'child.json'), join(copy, 'child.json'));
    process.kill(daemon.pid!, 'SIGKILL'); // the daemon crashed
    await exited(daemon);

    expect(await reapOrphanChild(copy)).toBeUndefined();
    expect(isProcessGroupAlive(devServer.pid!)).toBe(true);
    expect(await reapOrphanChild(own)).toMatch(/Stopped the dev server a crashed median-dev left running/);
    await exited(devServer);
  });
});
