import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('median-dev start: a key rotation in the env file', () => {
  it('restarts the child with the new key and reconnects the endpoint, so calls verify again', async () => {
    const world = await useE2eWorld({ envFileText: (key) => `# keys\nMEDIAN_KEY=${key}\nOTHER=1\n` });
    const cli = world.start();
    const first = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const [firstPid] = childPids(cli);

    // "You rotated the Median key": a new key for the same org, written into the env file.
    const newKey = world.emulator.createKey();
    const mark = cli.events().length;
    const text = await readFile(world.envFile, 'utf8');
    await writeFile(world.envFile, text.replace(`MEDIAN_KEY=${world.emulator.key}`, `MEDIAN_KEY=${newKey}`));

    const log = await waitForEventAfter(cli, mark, 'log');
    expect(log.message).toEqual(expect.stringContaining('MEDIAN_KEY'));
    expect(log.message).toEqual(expect.stringContaining(newKey.slice(-4)));
    expect(log.message).not.toEqual(expect.stringContaining(newKey));
    // The TUI header follows: the new key's fingerprint and the env file it came from.
    const key = await waitForEventAfter(cli, mark, 'key');
    expect(key).toMatchObject({ fingerprint: expect.stringContaining(newKey.slice(-4)), source: '.env.local' });
    const reconnected = await waitForEventAfter(cli, mark, 'endpoint', { action: 'connected' });
    const synced = await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced' });
    expect(reconnected).toMatchObject({ id: first.id, url: first.url });
    expect(synced).toMatchObject({ id: first.id, url: first.url });
    // From the rotation's log line on: the first start's own connect record can still arrive after `mark` (records are batched).
    const rotatedAt = cli.events().findIndex((e, i) => i >= mark && isEvent(e, 'log', { message: log.message }));
    expect(rotatedAt).toBeGreaterThanOrEqual(mark);
    const connects = cli.events().slice(rotatedAt).filter((e) => isEvent(e, 'call', { kind: 'connect' }));
    expect(connects).toEqual([expect.objectContaining({ status: 200, verdict: 'answered' })]);
    const pids = childPids(cli);
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(firstPid);

    // The old key goes away; the endpoint signs with the new one, which the route and the proxy verify.
    world.emulator.revokeKey(world.emulator.key);
    const callMark = cli.events().length;
    const call = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    expect(call).toMatchObject({ status: 200, endpointUrl: first.url });
    expect(call.verdict.kind).toBe('answered');
    const recorded = await waitForEventAfter(cli, callMark, 'call', { toolCallId: call.toolCallId });
    expect(recorded).toMatchObject({ signature: 'valid', status: 200, verdict: 'answered' });
    expect(await world.clientWithKey(newKey).listEndpoints()).toEqual([expect.objectContaining({ id: first.id, status: 'synced' })]);
    expect(cli.stdout()).not.toContain(newKey);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });

  it('says so, and keeps the key, when MEDIAN_KEY comes from the environment', async () => {
    const world = await useE2eWorld({ envFileText: (key) => `MEDIAN_KEY=${key}\n` });
    const cli = world.start({ env: { MEDIAN_KEY: world.emulator.key } });
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));

    const newKey = world.emulator.createKey();
    const mark = cli.events().length;
    await writeFile(world.envFile, (await readFile(world.envFile, 'utf8')).replace(world.emulator.key, newKey));
    const warning = await waitForEventAfter(cli, mark, 'log', { level: 'warn' });
    expect(warning.message).toEqual(expect.stringContaining('MEDIAN_KEY'));
    expect(childPids(cli)).toHaveLength(1);
    expect(eventsOf(cli, 'endpoint').slice(-1)).toEqual([expect.objectContaining({ action: 'synced' })]);
  });

  it('a sync the route refuses for its signature is reconnected once, the docs’ fix, and then syncs', async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const first = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));

    // Someone opened the route with another key of the org: Median now signs with it, and the route (holding the first key) refuses.
    const otherKey = world.emulator.createKey();
    const rebound = await world.clientWithKey(otherKey).connect(first.url as string);
    expect((await world.api.waitForSync(rebound.id, { timeoutMs: 5_000 })).error).toBe(
      "The endpoint refused the signature. Open the route once to reconnect it with that deployment’s MEDIAN_KEY.",
    );

    const mark = cli.events().length;
    const synced = await runCliInProcess(['sync', '--json', '--data-dir', world.dataDir, '--no-env-file', '--median-api', world.emulator.url], {
      env: { MEDIAN_KEY: world.emulator.key },
    });
    expect(synced.code).toBe(0);
    const failed = await waitForEventAfter(cli, mark, 'endpoint', { action: 'sync-failed' });
    expect(failed.fix).toEqual(expect.stringContaining('Reconnect'));
    const after = cli.events().slice(mark);
    const order = ['sync-failed', 'connected', 'synced'].map((action) => after.findIndex((e) => isEvent(e, 'endpoint', { action, id: first.id })));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
