import { describe, expect, it, vi } from 'vitest';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** The demo as a newcomer runs it: in a real terminal (tmux), with the terminal UI. */
describe('the demo in a terminal', () => {
  it('shows the command for a second terminal on its first screen, and again under ?', async () => {
    const dataDir = await useTempDir('median-dev-demo-tui-');
    const pane = await useTmux([process.execPath, CLI_PATH, 'demo', '--data-dir', dataDir, '--inspector-port', '0'], { width: 180 });
    const oneLiner = `calls --data-dir ${dataDir} --env ${dataDir}/demo.env`;

    await vi.waitFor(async () => expect(await pane.text()).toContain(oneLiner), { timeout: 20_000, interval: 100 });

    // Later notes take the footer; `?` shows the command again.
    await vi.waitFor(async () => expect(await pane.text()).toContain('endpoint synced'), { timeout: 20_000, interval: 100 });
    // The daemon's own notes (tunnel open, URL written, synced) do not push it out before a key does.
    expect(await pane.text()).toContain(oneLiner);
    await pane.sendKeys('?');
    await vi.waitFor(async () => {
      const text = await pane.text();
      expect(text).toContain('this help');
      expect(text).toContain(oneLiner);
    }, { timeout: 5_000, interval: 100 });
    await pane.sendKeys('Escape', 'q');
  }, 45_000);
});
