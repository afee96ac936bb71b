import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { eventsOf, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';

/**
 * A dev server whose route module fails to load, the way `next dev` prints it:
 * the docs' load error message, a stack under it, and (here) the process gone.
 */
const LOAD_ERROR_CHILD = [
  `console.error(' ⨯ Error: Median: the tool "orderStatus" has no description. Add one sentence that says when to use it.');`,
  `console.error('    at assertToolsLoad (/app/.next/server/app/api/median/route.js:95:11)');`,
  `console.error('    at createToolRoute (/app/.next/server/app/api/median/route.js:145:3)');`,
  'process.exit(1);',
].join('\n');

describe('a dead dev server does not flood the call list', () => {
  it('says the load error with the docs’ fix, backs off opening the route, and records one line with a repeat count', async () => {
    const world = await useE2eWorld();
    const cli = world.start({ childCommand: [process.execPath, '-e', LOAD_ERROR_CHILD] });

    const said = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'route_load_error' }), 20_000);
    expect(said.message).toContain('Median: the tool "orderStatus" has no description.');
    expect(said.message).not.toContain('at assertToolsLoad');
    expect(said.hint).toContain('Add one sentence');

    // The fourth try: with the tunnel's backoff (1 s, 2 s, 4 s, each jittered down by at most a quarter) it comes
    // after at least 5.25 s; opening every 2 s at most, it came after 1.4 s.
    const fourth = await cli.waitForEvent((e) => isEvent(e, 'call', { kind: 'connect', repeats: 4 }), 30_000);
    const connects = eventsOf(cli, 'call', { kind: 'connect' });
    expect(new Set(connects.map((e) => e.id))).toEqual(new Set([fourth.id]));
    expect(connects.map((e) => e.repeats)).toEqual([undefined, 2, 3, 4]);
    expect(eventsOf(cli, 'error', { code: 'route_load_error' })).toHaveLength(1);

    // What was recorded agrees: one record, its count and the last try's time, in calls and in show.
    const calls = spawnCli(['calls', '--json', '--data-dir', world.dataDir, '--target', `http://127.0.0.1:${world.routePort}`]);
    expect(await calls.exited).toBe(0);
    const records = (JSON.parse(calls.stdout()) as Array<{ id: string; kind: string; repeats?: number; receivedAt: string; lastAt?: string }>).filter((r) => r.kind === 'connect');
    expect(records).toHaveLength(1);
    expect(records[0]!.id).toBe(fourth.id);
    expect(records[0]!.repeats).toBeGreaterThanOrEqual(4);
    expect(Date.parse(records[0]!.lastAt!) - Date.parse(records[0]!.receivedAt)).toBeGreaterThanOrEqual(5_000);

    const plain = spawnCli(['calls', '--data-dir', world.dataDir]);
    expect(await plain.exited).toBe(0);
    expect(plain.stdout()).toMatch(/connect ×\d+/);

    const show = spawnCli(['show', String(fourth.id), '--data-dir', world.dataDir]);
    expect(await show.exited).toBe(0);
    expect(show.stdout()).toMatch(/repeated: ×\d+/);
    await cli.stop();
  });
});
