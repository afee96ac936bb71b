import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('median-dev start: every file of the env cascade is watched', () => {
  it('follows a key edited in .env, and .env.local wins over it as at start', async () => {
    // The key only in .env; .env.local (the env file) holds other settings.
    const world = await useE2eWorld({ envFileText: () => 'OTHER=1\n' });
    const dotEnv = join(world.projectDir, '.env');
    await writeFile(dotEnv, `MEDIAN_KEY=${world.emulator.key}\n`);
    const cli = world.start();
    const first = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);

    const newKey = world.emulator.createKey();
    let mark = cli.events().length;
    await writeFile(dotEnv, `MEDIAN_KEY=${newKey}\n`);
    expect(await waitForEventAfter(cli, mark, 'key', {}, 15_000)).toMatchObject({ fingerprint: expect.stringContaining(newKey.slice(-4)), source: '.env' });
    expect(await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced' }, 15_000)).toMatchObject({ id: first.id });
    expect(await world.clientWithKey(newKey).listEndpoints()).toEqual([expect.objectContaining({ id: first.id, status: 'synced' })]);

    // The same order as at start: a key in .env.local comes before .env's.
    const thirdKey = world.emulator.createKey();
    mark = cli.events().length;
    await writeFile(world.envFile, `OTHER=1\nMEDIAN_KEY=${thirdKey}\n`);
    expect(await waitForEventAfter(cli, mark, 'key', {}, 15_000)).toMatchObject({ fingerprint: expect.stringContaining(thirdKey.slice(-4)), source: '.env.local' });
    // An edit to .env now changes nothing: .env.local's key wins.
    mark = cli.events().length;
    await writeFile(dotEnv, `MEDIAN_KEY=${world.emulator.createKey()}\n`);
    await writeFile(join(world.projectDir, '.env.development'), 'TOUCHED=1\n');
    await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced' }, 15_000).catch(() => undefined);
    expect(cli.events().slice(mark).filter((e) => isEvent(e, 'key'))).toEqual([]);
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 90_000);
});
