import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { eventsOf, isEvent, useE2eWorld, type E2eWorld } from '../../helpers/e2e-world.js';
import type { SpawnedCli } from '../../helpers/cli-harness.js';
import { requestVia } from '../../helpers/use-tunnel-server.js';
import { signedToolCall } from '../../helpers/signed-tool-call.js';

/**
 * The data dir stops taking writes while the daemon runs. As root, chmod does
 * not stop a write, so the calls folder is taken away: replaced by a file
 * (every write fails) or deleted (the open segment is gone).
 */

interface Started {
  world: E2eWorld;
  cli: SpawnedCli;
  /** Sends one signed tool call through the tunnel, as Median would; resolves with its status and toolCallId. */
  call(): Promise<{ status: number; toolCallId: string }>;
  /** Waits for the `call` event of a toolCallId. */
  announced(toolCallId: string): Promise<Record<string, unknown>>;
  storedIds(): Promise<string[]>;
}

async function startAndConnect(): Promise<Started> {
  const world = await useE2eWorld();
  const cli = world.start();
  const endpoint = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
  const host = new URL(endpoint.url as string).host;
  return {
    world,
    cli,
    async call() {
      const call = signedToolCall(world.emulator.key);
      const answer = await requestVia(world.tunnelServer, host, { method: 'POST', path: '/api/median', headers: call.headers, body: call.body });
      return { status: answer.status, toolCallId: call.toolCallId };
    },
    announced: (toolCallId) => cli.waitForEvent((e) => isEvent(e, 'call', { toolCallId })),
    storedIds: async () => (await createCallStore(world.dataDir).list()).map((r) => r.toolCallId),
  };
}

describe('median-dev start: the data dir stops taking writes', () => {
  it('keeps answering through the tunnel while calls cannot be recorded, says so once, and records again once it can', async () => {
    const { world, cli, call, announced, storedIds } = await startAndConnect();
    const before = await call();
    expect(before.status).toBe(200);
    await announced(before.toolCallId);

    const callsDir = join(world.dataDir, 'calls');
    await rm(callsDir, { recursive: true });
    await writeFile(callsDir, 'in the way');
    const during = await Promise.all(Array.from({ length: 6 }, () => call()));
    expect(during.map((c) => c.status)).toEqual(Array(6).fill(200));
    for (const { toolCallId } of during) expect(await announced(toolCallId)).toMatchObject({ status: 200, verdict: 'answered' });
    expect(eventsOf(cli, 'recording')).toEqual([expect.objectContaining({ state: 'failing', message: expect.any(String) })]);
    expect(cli.child.exitCode).toBeNull();
    // Readers (`median-dev calls`) say what is wrong instead of failing on ENOTDIR.
    await expect(storedIds()).rejects.toMatchObject({ code: 'store_unreadable' });

    await rm(callsDir);
    const after = await call();
    expect(after.status).toBe(200);
    await announced(after.toolCallId);
    expect(eventsOf(cli, 'recording').map((e) => e.state)).toEqual(['failing', 'ok']);
    // The folder (and `before` with it) was deleted; the calls made meanwhile were answered, not recorded.
    expect(await storedIds()).toEqual([after.toolCallId]);
    expect(eventsOf(cli, 'error')).toEqual([]);
    expect(cli.child.exitCode).toBeNull();
  });

  it('records into a new calls folder when the one being written is deleted', async () => {
    const { world, cli, call, announced, storedIds } = await startAndConnect();
    const before = await call();
    await announced(before.toolCallId);

    await rm(join(world.dataDir, 'calls'), { recursive: true });
    const after = await call();
    expect(after.status).toBe(200);
    await announced(after.toolCallId);
    // The record went to a file that can be read, not into the deleted one.
    expect(await storedIds()).toEqual([after.toolCallId]);
    expect(eventsOf(cli, 'recording')).toEqual([]);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });
});
