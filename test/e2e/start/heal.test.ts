import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/platform/index.js';
import { childPids, eventsOf, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';

const RESULTS_DIR = fileURLToPath(new URL('../.results/', import.meta.url));
/** Issue 4's target for a dropped tunnel to heal. */
const HEAL_TARGET_SECONDS = 5;
/**
 * What the test asserts: the target itself. The heal takes 0.4–0.7 s on a
 * busy 2-core machine: a refused socket reconnect reports the loss at once
 * (it took the 3 s lost window before) and the first reopen after a loss
 * waits ~0.2 s (it took the 1 s backoff). It took 4.2–5.5 s before that.
 */
const HEAL_LIMIT_SECONDS = HEAL_TARGET_SECONDS;

describe('median-dev start: healing', () => {
  it('heals a dropped tunnel whose name is refused on reconnect: new URL, env file, child, the same endpoint changed in place', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const first = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const [firstPid] = childPids(cli);
    const oldUrl = first.url as string;
    const name = new URL(oldUrl).hostname.split('.')[0]!;
    expect(world.tunnelServer.clients().map((c) => c.id)).toEqual([name]);

    // The tunnel server loses the client and gives its name away.
    const mark = cli.events().length;
    const droppedAt = Date.now();
    world.tunnelServer.refuseName(name);
    world.tunnelServer.dropClient(name, { forget: true });

    const healed = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }) && e.url !== oldUrl, 15_000);
    const seconds = (Date.now() - droppedAt) / 1000;
    const after = cli.events().slice(mark);
    // Where the time goes: seconds from the drop to each step, by the events' own clock.
    const step = (predicate: (e: Record<string, unknown>) => boolean) => {
      const e = after.find(predicate);
      return e ? (Date.parse(e.at as string) - droppedAt) / 1000 : null;
    };
    const steps = {
      tunnelDown: step((e) => isEvent(e, 'tunnel', { state: 'down' })),
      tunnelOpen: step((e) => isEvent(e, 'tunnel', { state: 'open' })),
      toolsUrl: step((e) => isEvent(e, 'tools-url')),
      childRunning: step((e) => isEvent(e, 'child', { state: 'running' })),
      endpointChanged: step((e) => isEvent(e, 'endpoint', { action: 'changed' })),
      endpointSynced: step((e) => isEvent(e, 'endpoint', { action: 'synced' })),
    };
    await mkdir(RESULTS_DIR, { recursive: true });
    await writeFile(
      `${RESULTS_DIR}heal-time.json`,
      `${JSON.stringify({ scenario: 'tunnel dropped, name refused on reconnect', seconds, targetSeconds: HEAL_TARGET_SECONDS, meetsTarget: seconds <= HEAL_TARGET_SECONDS, steps, at: new Date().toISOString() }, null, 2)}\n`,
    );
    console.log(`heal: ${seconds.toFixed(2)} s from the drop to the synced endpoint (target ≤ ${HEAL_TARGET_SECONDS} s): ${JSON.stringify(steps)}`);

    const newUrl = healed.url as string;
    expect(newUrl).not.toBe(oldUrl);
    expect(after.find((e) => isEvent(e, 'tunnel', { state: 'down' }))).toBeDefined();
    const open = after.find((e) => isEvent(e, 'tunnel', { state: 'open' }));
    expect(open).toMatchObject({ isHostnameChange: true });
    expect(newUrl).toBe(`${open!.url as string}/api/median`);
    expect(healed.id).toBe(first.id);

    // SPEC order: the env file, then the child, then the endpoint.
    const index = (predicate: (e: Record<string, unknown>) => boolean) => after.findIndex(predicate);
    const toolsUrlAt = index((e) => isEvent(e, 'tools-url', { url: newUrl }));
    const childAt = index((e) => isEvent(e, 'child', { state: 'running' }));
    const changedAt = index((e) => isEvent(e, 'endpoint', { action: 'changed', id: first.id, url: newUrl }));
    expect(toolsUrlAt).toBeGreaterThanOrEqual(0);
    expect(childAt).toBeGreaterThan(toolsUrlAt);
    expect(changedAt).toBeGreaterThan(childAt);
    expect(await readFile(world.envFile, 'utf8')).toBe(`MEDIAN_KEY=${world.emulator.key}\nMEDIAN_TOOLS_URL=${newUrl}\n`);
    const pids = childPids(cli);
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(firstPid);
    expect(isProcessAlive(firstPid!)).toBe(false);

    const endpoints = await world.api.listEndpoints();
    expect(endpoints).toEqual([expect.objectContaining({ id: first.id, url: newUrl, status: 'synced', error: null })]);
    expect(eventsOf(cli, 'endpoint', { action: 'removed' })).toEqual([]);
    expect(eventsOf(cli, 'error')).toEqual([]);
    expect(seconds).toBeLessThanOrEqual(HEAL_LIMIT_SECONDS);
  });
});
