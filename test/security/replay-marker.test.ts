import { describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { CallRecord } from '../../src/median/index.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { isEvent, useE2eWorld } from '../helpers/e2e-world.js';
import { requestVia } from '../helpers/use-tunnel-server.js';

/**
 * The public side (anyone who reaches the tunnel URL, or a tunnel server that
 * saw a real replay go by) sends `x-median-dev-replay-of` itself: the marker
 * is bound to the daemon's replay key, so its request is recorded as an
 * ordinary call, never as a replay of ours.
 */
describe('the replay marker from outside', () => {
  it('a bare record id or a made-up marker through the tunnel is no replay; a real replay is', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const open = daemon.events().find((e) => isEvent(e, 'tunnel', { state: 'open' }))!;
    const publicHost = new URL(open.url as string).host;
    const cli = (args: string[]) => runCliInProcess([...args, '--data-dir', world.dataDir, '--env', world.envFile], { cwd: world.projectDir, env: {} });
    const json = async <T>(args: string[]): Promise<T> => {
      const run = await cli([...args, '--json']);
      if (run.code !== 0) throw new Error(`median-dev ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
      return JSON.parse(run.stdout) as T;
    };
    const call = await json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}']);
    const original = await vi.waitFor(() => json<CallRecord>(['show', call.toolCallId]), { timeout: 15_000 });

    const forged = [original.id, `${original.id}.${randomBytes(32).toString('hex')}`];
    for (const [i, marker] of forged.entries()) {
      const body = JSON.stringify({ tool: 'orderStatus', toolCallId: `forged_${i}`, input: { orderNumber: 'A1001' }, context: {} });
      const answer = await requestVia(world.tunnelServer, publicHost, {
        method: 'POST',
        path: '/api/median',
        headers: { 'content-type': 'application/json', 'x-median-dev-replay-of': marker },
        body,
      });
      expect(answer.status).toBe(401); // unsigned: the route refuses it
    }
    const calls = await vi.waitFor(
      async () => {
        const all = await json<CallRecord[]>(['calls']);
        expect(all.filter((r) => r.toolCallId.startsWith('forged_'))).toHaveLength(2);
        return all;
      },
      { timeout: 15_000 },
    );
    for (const record of calls.filter((r) => r.toolCallId.startsWith('forged_'))) {
      expect(record.replayOf).toBeNull();
      expect(record.request.headers).not.toHaveProperty('x-median-dev-replay-of');
    }
    // The original lists no replay: nothing from outside counts as one.
    expect((await json<{ replays?: unknown[] }>(['show', call.toolCallId])).replays ?? []).toEqual([]);

    const replay = await json<CallRecord>(['replay', call.toolCallId]);
    expect(replay.replayOf).toBe(original.id);
  });
});
