import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectToDaemon } from '../../../src/control/index.js';
import { formatHeader, initialState, reduce } from '../../../src/tui/index.js';
import { isEvent, useE2eWorld } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

describe('the TUI header says which file the key came from', () => {
  it('a key only in .env: the daemon’s snapshot names .env, and the header a TUI draws from it shows it', async () => {
    const world = await useE2eWorld({ envFileText: null });
    await writeFile(join(world.projectDir, '.env'), `MEDIAN_KEY=${world.emulator.key}\n`);
    // The default env file (.env.local, absent): the key comes from .env beside it.
    const cli = world.start({ envFileFlag: false });
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    const control = useTeardown(await connectToDaemon(world.dataDir), (c) => c.close());
    expect(control.snapshot).toMatchObject({ keySource: '.env' });
    const state = reduce(initialState({ width: 200, height: 20 }), { type: 'snapshot', snapshot: control.snapshot }).state;
    expect(formatHeader(state)).toMatch(/key …\w{4} from \.env\b/);
    await cli.stop();
  });
});
