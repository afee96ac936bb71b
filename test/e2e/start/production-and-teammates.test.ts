import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateProjectState } from '../../../src/config/index.js';
import { connectToDaemon } from '../../../src/control/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import type { ClassifiedEndpoint } from '../../../src/endpoints/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { eventsOf, isEvent, useE2eWorld, type E2eWorld } from '../../helpers/e2e-world.js';

/** Production, as the emulator holds it (nothing listens there). */
const PROD = 'https://acme.example/api/median';
/** A teammate's localtunnel endpoint, held by the emulator. */
const MATE = 'https://dana-7f3a.loca.lt/api/median';

/** A command against the world's emulator and data dir, in this process. */
function command(world: E2eWorld, args: string[], answers?: string[]) {
  return runCliInProcess([...args, '--data-dir', world.dataDir, '--no-env-file', '--median-api', world.emulator.url], {
    env: { MEDIAN_KEY: world.emulator.key },
    ...(answers ? { answers } : {}),
  });
}

async function state(world: E2eWorld): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(world.dataDir, 'state.json'), 'utf8')) as Record<string, unknown>;
}

describe('median-dev start in an organisation shared with production and teammates', () => {
  it('production present, no clash: stops and explains, proceeds only with --allow-production-org, then remembers it', async () => {
    const world = await useE2eWorld();
    const prod = await world.emulator.holdEndpoint({ url: PROD, tools: ['shipParcel', 'trackParcel'] });

    const refused = world.start();
    const stop = await refused.waitForEvent((e) => isEvent(e, 'error', { code: 'production_org' }));
    expect(stop.message).toContain(PROD);
    expect(stop.message).toContain('the live agent would see the tools you are still writing');
    expect(stop.message).toContain('would wait for a sync of this laptop');
    expect(stop.hint).toContain('separate development organisation (Settings → API in that organisation)');
    expect(stop.hint).toContain('--allow-production-org');
    expect(eventsOf(refused, 'endpoint')).toEqual([]);
    expect(await world.api.listEndpoints()).toEqual([prod]);
    // The daemon stays up (proxy, tunnel, recordings) without an endpoint; a TUI attaching now and doctor say why.
    const control = useTeardown(await connectToDaemon(world.dataDir), (c) => c.close());
    expect(control.snapshot).toMatchObject({ endpoint: null, endpointBlocked: stop.message });
    const doctor = await command(world, ['doctor', '--json']);
    expect(JSON.parse(doctor.stdout).checks).toContainEqual(expect.objectContaining({ check: 'production', status: 'fail' }));
    await refused.stop();

    const allowed = world.start({ args: ['--allow-production-org'] });
    const synced = await allowed.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(eventsOf(allowed, 'error', { code: 'production_org' })).toEqual([]);
    expect((await world.api.listEndpoints()).find((e) => e.id === prod.id)).toEqual(prod);
    expect(await state(world)).toMatchObject({ allowProductionOrg: true });
    await allowed.stop();

    // Remembered for this project: a plain start proceeds.
    const again = world.start();
    await again.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced', id: synced.id }));
    expect(eventsOf(again, 'error', { code: 'production_org' })).toEqual([]);
    await again.stop();

    // --no-allow-production-org forgets it.
    const forgot = world.start({ args: ['--no-allow-production-org'] });
    await forgot.waitForEvent((e) => isEvent(e, 'error', { code: 'production_org' }));
    expect(await state(world)).toMatchObject({ allowProductionOrg: false });
    // Four starts and a doctor, each a process of its own: ~8 s on a quiet machine, past 20 s at load 12.
  }, 60_000);

  it('a clash with production: never removed, never offered by prune, the fix is a development organisation or a rename', async () => {
    const world = await useE2eWorld();
    const prod = await world.emulator.holdEndpoint({ url: PROD, tools: ['orderStatus', 'trackParcel'] });

    const cli = world.start({ args: ['--allow-production-org'] });
    const clash = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }));
    expect(clash).toMatchObject({ otherUrl: PROD, otherOwner: 'production', tool: 'orderStatus' });
    expect(clash.fix).toContain('never removes it');
    expect(clash.fix).toContain('separate development organisation');
    expect(clash.fix).toContain('rename "orderStatus"');
    expect(clash.fix).not.toContain('prune');
    expect(eventsOf(cli, 'endpoint', { action: 'removed' })).toEqual([]);

    const listed = JSON.parse((await command(world, ['endpoints', '--json'])).stdout) as ClassifiedEndpoint[];
    expect(listed.find((e) => e.id === prod.id)).toMatchObject({ owner: 'production', clashesWithCurrent: true });
    const table = await command(world, ['endpoints']);
    expect(table.stdout).toContain('production or a preview');
    expect(table.stdout).toContain('never removes it');

    const pruned = await command(world, ['endpoints', 'prune', '--yes', '--json']);
    expect(JSON.parse(pruned.stdout)).toEqual({ removed: [], kept: [], neverRemoved: [{ id: prod.id, url: PROD, owner: 'production' }] });
    // Asked in a terminal, it asks nothing about production and answers "yes" remove nothing.
    const asked = await command(world, ['endpoints', 'prune'], ['y', 'yes', 'acme.example']);
    expect(asked.stderr).not.toContain(PROD);
    expect(asked.stdout).toContain(`kept ${prod.id} ${PROD}`);
    expect((await world.api.listEndpoints()).find((e) => e.id === prod.id)).toEqual(prod);
  });

  it('a clash with a teammate’s tunnel: named as a dev tunnel, removed only on its name typed back', async () => {
    const world = await useE2eWorld();
    const mate = await world.emulator.holdEndpoint({ url: MATE, tools: ['orderStatus'] });

    const cli = world.start();
    const clash = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }));
    expect(clash).toMatchObject({ otherUrl: MATE, otherOwner: 'dev-tunnel', tool: 'orderStatus' });
    expect(clash.fix).toContain('likely a teammate’s');
    expect(clash.fix).toContain('confirm it by name');
    expect(eventsOf(cli, 'error', { code: 'production_org' })).toEqual([]);
    expect(eventsOf(cli, 'endpoint', { action: 'removed' })).toEqual([]);

    // --yes is not a confirmation by name.
    const yes = JSON.parse((await command(world, ['endpoints', 'prune', '--yes', '--json'])).stdout);
    expect(yes).toMatchObject({ removed: [], kept: [mate.id] });
    // "y" is not its name either.
    const wrong = await command(world, ['endpoints', 'prune'], ['y']);
    expect(wrong.stderr).toContain(`Type its name (dana-7f3a.loca.lt)`);
    expect(wrong.stderr).toContain('another dev tunnel (likely a teammate’s)');
    expect((await world.api.listEndpoints()).map((e) => e.id)).toContain(mate.id);

    const named = await command(world, ['endpoints', 'prune', '--json'], ['dana-7f3a.loca.lt']);
    expect(JSON.parse(named.stdout)).toMatchObject({ removed: [mate.id], resynced: 'synced' });
    expect((await world.api.listEndpoints()).map((e) => e.url)).toEqual([clash.url]);
  });

  it('this project’s own stale endpoint is still healed by itself, beside production and a teammate it leaves alone', async () => {
    const world = await useE2eWorld();
    const prod = await world.emulator.holdEndpoint({ url: PROD, tools: ['shipParcel'] });
    const mate = await world.emulator.holdEndpoint({ url: MATE, tools: ['lookupCustomer'] });
    // An earlier tunnel URL of this very project, still connected with its tools.
    const oldUrl = 'https://old-name.lt.median.test/api/median';
    const old = await world.emulator.holdEndpoint({ url: oldUrl, tools: ['orderStatus'] });
    await updateProjectState(world.dataDir, { tunnelUrls: [oldUrl] });

    const cli = world.start({ args: ['--allow-production-org'] });
    const clash = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'clash' }));
    expect(eventsOf(cli, 'endpoint', { action: 'removed' })).toEqual([expect.objectContaining({ id: old.id, url: oldUrl })]);
    // What is left is the teammate's clash, which it does not touch.
    expect(clash).toMatchObject({ otherUrl: MATE, otherOwner: 'dev-tunnel', tool: 'lookupCustomer' });
    const left = await world.api.listEndpoints();
    expect(left.map((e) => e.id).sort()).toEqual([prod.id, mate.id, clash.id].sort());
  });
});
