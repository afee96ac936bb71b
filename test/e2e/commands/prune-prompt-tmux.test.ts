import { describe, expect, it, vi } from 'vitest';
import { updateProjectState } from '../../../src/config/index.js';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** `endpoints prune` asking in a real terminal (tmux): the prompt is text, the answer is read. */
describe('endpoints prune in a terminal', () => {
  it('asks with a clean prompt and removes the stale endpoint on y', async () => {
    const { emulator, client } = await useEmulator();
    const routes = await useManifestServer();
    routes.serve('/old/api/median', { body: manifestOf('orderStatus') });
    routes.serve('/new/api/median', { body: manifestOf('orderStatus') });
    const oldUrl = routes.url('/old/api/median');
    const newUrl = routes.url('/new/api/median');
    const old = await client.waitForSync((await client.connect(oldUrl)).id);
    const current = await client.waitForSync((await client.connect(newUrl)).id);
    const dataDir = await useTempDir('median-dev-prune-tty-');
    await updateProjectState(dataDir, { endpointId: current.id, toolsUrl: newUrl, tunnelUrls: [oldUrl, newUrl], target: routes.origin, route: '/new/api/median' });

    const pane = await useTmux([process.execPath, CLI_PATH, 'endpoints', 'prune', '--data-dir', dataDir, '--no-env-file', '--median-api', emulator.url], {
      width: 200,
      env: { MEDIAN_KEY: emulator.key },
    });
    await vi.waitFor(async () => expect(await pane.text()).toContain('[y/N]'), { timeout: 20_000, interval: 100 });
    const prompt = await pane.text();
    expect(prompt).toContain(`Remove ${old.id} ${oldUrl}`);
    // readline's own cursor moves, escaped by the output guard, used to show up as text.
    expect(prompt).not.toContain('\\u001b');
    await pane.sendKeys('y', 'Enter');
    await vi.waitFor(async () => expect(await pane.text()).toContain(`removed ${old.id}`), { timeout: 20_000, interval: 100 });
    expect(await pane.text()).not.toContain('\\u001b');
    expect((await client.listEndpoints()).map((e) => e.id)).not.toContain(old.id);
  }, 45_000);
});
