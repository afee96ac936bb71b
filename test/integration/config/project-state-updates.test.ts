import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProjectState, updateProjectState } from '../../../src/config/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';

describe('updateProjectState', () => {
  it('keeps every patch of updates made at once (the target found while the endpoint is remembered)', async () => {
    const dataDir = join(await useTempDir('median-dev-state-'), '.median-dev');
    await Promise.all([
      updateProjectState(dataDir, { target: 'http://127.0.0.1:3001', targetFrom: 'announced' }),
      updateProjectState(dataDir, { endpointId: 'ep_1' }),
      updateProjectState(dataDir, { toolsUrl: 'https://a.example.test/api/median' }),
    ]);
    expect(await readProjectState(dataDir)).toMatchObject({ target: 'http://127.0.0.1:3001', targetFrom: 'announced', endpointId: 'ep_1', toolsUrl: 'https://a.example.test/api/median' });
  });

  it('goes on after an update that failed', async () => {
    const dir = await useTempDir('median-dev-state-');
    // A data dir under a regular file cannot be made: that update fails, and the next ones of the same dir still run.
    const bad = join(dir, 'file', '.median-dev');
    await writeFile(join(dir, 'file'), 'x');
    await expect(updateProjectState(bad, { endpointId: 'ep_1' })).rejects.toThrow();
    await expect(updateProjectState(bad, { endpointId: 'ep_2' })).rejects.toThrow();
    const good = join(dir, '.median-dev');
    await updateProjectState(good, { endpointId: 'ep_3' });
    expect(await readProjectState(good)).toMatchObject({ endpointId: 'ep_3' });
  });
});
