import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** A dev server that prints its config (the key among it), fails to load a module and exits 1. */
const CRASHING_DEV_SERVER = [
  "console.log('config: MEDIAN_KEY=' + process.env.MEDIAN_KEY);",
  "console.error(\"Error: Cannot find module './db'\");",
  'setTimeout(() => process.exit(1), 1500);',
].join('\n');

function withoutFlags(args: string[], flags: string[]): string[] {
  return args.filter((arg) => !flags.includes(arg));
}

describe('the dev server\'s output', () => {
  it('goes to dev-server.log in the data dir (0600, masked) and opens in the TUI when it crashes', async () => {
    const world = await useE2eWorld();
    const args = withoutFlags(world.startArgs(), ['--json', '--no-tui']);
    const pane = await useTmux(['sh', '-c', 'cd "$0" && exec "$@"', world.projectDir, process.execPath, CLI_PATH, ...args, '--', process.execPath, '-e', CRASHING_DEV_SERVER], {
      width: 160,
      height: 40,
      env: { MEDIAN_API_URL: world.emulator.url },
    });
    // The TUI shows the last lines by itself once it exited.
    await vi.waitFor(async () => expect(await pane.text()).toContain("Cannot find module './db'"), { timeout: 30_000, interval: 200 });
    const screen = await pane.text();
    expect(screen).toContain('Dev server output');
    expect(screen).toContain('exited (code 1)');
    expect(screen).not.toContain(world.emulator.key);

    const log = join(world.dataDir, 'dev-server.log');
    // The TUI shows the exit as its event arrives; the log's append of it may land a moment later.
    await vi.waitFor(async () => expect(await readFile(log, 'utf8')).toContain('--- dev server exited (code 1)'), { timeout: 5_000, interval: 50 });
    const text = await readFile(log, 'utf8');
    expect(text).toContain("err Error: Cannot find module './db'");
    expect(text).toContain('--- dev server exited (code 1)');
    expect(text).toContain('config: MEDIAN_KEY=');
    expect(text).not.toContain(world.emulator.key);
    if (process.platform !== 'win32') expect((await stat(log)).mode & 0o777).toBe(0o600);
    // Any key closes the box; o opens it again.
    await pane.sendKeys('Escape');
    await vi.waitFor(async () => expect(await pane.text()).not.toContain('Dev server output'), { timeout: 10_000, interval: 100 });
    await pane.sendKeys('o');
    await vi.waitFor(async () => expect(await pane.text()).toContain("Cannot find module './db'"), { timeout: 10_000, interval: 100 });
    await pane.sendKeys('Escape', 'q');
  }, 60_000);

  it('--no-tui still prints it as [dev] lines, and the log holds it too', async () => {
    const world = await useE2eWorld();
    const cli = world.start({ childCommand: [process.execPath, '-e', CRASHING_DEV_SERVER] });
    await waitForEventAfter(cli, 0, 'child', { state: 'exited' }, 30_000);
    expect(cli.stderr()).toContain("[dev] Error: Cannot find module './db'");
    await vi.waitFor(async () => expect(await readFile(join(world.dataDir, 'dev-server.log'), 'utf8')).toContain('exited (code 1)'), { timeout: 5_000, interval: 50 });
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);
});
