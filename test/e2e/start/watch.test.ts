import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('median-dev start --watch', () => {
  it('syncs the endpoint when a watched file changes', async () => {
    const world = await useE2eWorld();
    await mkdir(join(world.projectDir, 'tools'));
    const toolFile = join(world.projectDir, 'tools', 'order-status.ts');
    await writeFile(toolFile, 'export const version = 1;\n');
    const cli = world.start({ args: ['--watch', 'tools/**/*.ts'] });
    const first = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const [before] = await world.api.listEndpoints();

    const mark = cli.events().length;
    await writeFile(toolFile, 'export const version = 2;\n');
    const log = await waitForEventAfter(cli, mark, 'log');
    expect(log.message).toEqual(expect.stringContaining('watched'));
    const synced = await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced' });
    expect(synced).toMatchObject({ id: first.id, url: first.url });
    const [after] = await world.api.listEndpoints();
    expect(after).toMatchObject({ id: first.id, status: 'synced' });
    expect(Date.parse(after!.syncedAt!)).toBeGreaterThan(Date.parse(before!.syncedAt!));
  });
});
