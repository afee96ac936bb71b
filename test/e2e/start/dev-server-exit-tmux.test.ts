import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useE2eWorld } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

const WHY = 'Error: listen EADDRINUSE: address already in use 127.0.0.1:3000';

/** `start` with its terminal UI in a real tmux pane, its dev server failing at once as one whose port is taken does. */
describe('a dev server that fails at once, in a real terminal', () => {
  it('its lines are on the screen, and still in the terminal once median-dev quit', { timeout: 60_000 }, async () => {
    const world = await useE2eWorld();
    const args = world.startArgs().filter((arg) => arg !== '--json' && arg !== '--no-tui');
    const devServer = [process.execPath, '-e', `console.log('> shop@1.0.0 dev'); console.error(${JSON.stringify(WHY)}); process.exit(3)`];
    // Under a shell that stays, as a user's does: a pane whose program ended can lose its top line to tmux's "Pane is dead".
    const shell = ['sh', '-c', '"$@"; echo "median-dev ended: $?"; read done', 'sh'];
    const pane = await useTmux([...shell, process.execPath, CLI_PATH, ...args, '--no-inspector', '--', ...devServer], { width: 160, height: 40, cwd: world.projectDir });

    await vi.waitFor(async () => expect(await pane.text()).toContain(WHY), { timeout: 30_000, interval: 200 });
    expect(await pane.text()).toContain('exited (code 3)');
    // The first key closes the box of its lines, the second quits.
    await pane.sendKeys('q');
    await vi.waitFor(async () => expect(await pane.text()).not.toContain('Dev server output'), { timeout: 10_000, interval: 100 });
    await pane.sendKeys('q');
    await vi.waitFor(async () => expect(await pane.text()).toContain('median-dev ended: 0'), { timeout: 15_000, interval: 200 });
    const left = await pane.text();
    expect(left).toContain('median-dev: the dev server exited (code 3)');
    expect(left).toContain(`  > shop@1.0.0 dev\n  ${WHY}`);
    expect(left).toContain(`All of its output: ${join(world.dataDir, 'dev-server.log')}`);
  });
});
