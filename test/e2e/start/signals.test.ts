import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isProcessAlive, isProcessGroupAlive } from '../../../src/platform/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { childPids, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';

/** SPEC §2.1: SIGINT/SIGTERM close everything and exit 0 within 3 s; SIGHUP (the terminal closed) too. */
const EXIT_LIMIT_MS = 3_000;

/** start with a dev server that ignores SIGTERM (closing waits for the stop grace period), up and running. */
async function startWithStubbornChild() {
  const world = await useE2eWorld();
  const stubborn = join(world.projectDir, 'stubborn.mjs');
  await writeFile(stubborn, "process.on('SIGTERM', () => console.log('ignoring SIGTERM'));\nsetInterval(() => {}, 1000);\nconsole.log('up');\n");
  const cli = world.start({ childCommand: [process.execPath, stubborn] });
  await cli.waitForEvent((e) => isEvent(e, 'child', { state: 'running' }));
  const [childPid] = childPids(cli);
  useTeardown(childPid!, (pid) => {
    if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  await vi.waitFor(() => expect(cli.stderr()).toContain('[dev] up'), { timeout: 5_000 });
  return { cli, childPid };
}

describe('median-dev start: signals', () => {
  it.each(process.platform === 'win32' ? (['SIGINT', 'SIGTERM'] as const) : (['SIGINT', 'SIGTERM', 'SIGHUP'] as const))('%s exits 0 within 3 s and leaves no process behind', async (signal) => {
    const world = await useE2eWorld();
    const cli = world.start();
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const [childPid] = childPids(cli);
    expect(isProcessAlive(childPid!)).toBe(true);

    const sentAt = Date.now();
    const code = await cli.stop(signal);
    expect(Date.now() - sentAt).toBeLessThan(EXIT_LIMIT_MS);
    expect(code).toBe(0);
    expect(isProcessAlive(childPid!)).toBe(false);
    // The child ran as the leader of its own process group: nothing of that group is left.
    expect(isProcessGroupAlive(childPid!)).toBe(false);
    expect(world.tunnelServer.clients().filter((c) => c.sockets > 0)).toEqual([]);
    // The endpoint stays registered, so the next start changes it in place.
    expect(await world.api.listEndpoints()).toHaveLength(1);
  });

  it('exits at once on a second SIGINT while the first is still closing', async () => {
    const { cli, childPid } = await startWithStubbornChild();

    cli.child.kill('SIGINT');
    await vi.waitFor(() => expect(cli.stderr()).toContain('[dev] ignoring SIGTERM'), { timeout: 5_000 });
    const sentAt = Date.now();
    const code = await cli.stop('SIGINT');
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    expect(code).toBe(130);
    // The dev server does not outlive median-dev, even one that ignores SIGTERM.
    await vi.waitFor(() => expect(isProcessGroupAlive(childPid!)).toBe(false), { timeout: 2_000 });
  });

  it('a dev server that ignores SIGTERM is killed within the 3 s a SIGINT promises', async () => {
    const { cli, childPid } = await startWithStubbornChild();
    const sentAt = Date.now();
    const code = await cli.stop('SIGINT');
    expect(Date.now() - sentAt).toBeLessThan(EXIT_LIMIT_MS);
    expect(code).toBe(0);
    expect(isProcessGroupAlive(childPid!)).toBe(false);
  });
});
