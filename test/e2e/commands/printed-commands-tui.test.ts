import { describe, expect, it, vi } from 'vitest';
import { pasteCommand } from '../../helpers/paste-command.js';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { isEvent, useE2eWorld, useTempDir, waitForEventAfter } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';
import { requestVia } from '../../helpers/use-tunnel-server.js';


/** An input of 3,200 keys: its detail is longer than the pane keeps (3,000 lines), so the pane ends with a `show` command. */
const LONG_INPUT = `{${Array.from({ length: 3_200 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const LONG_BODY = `{"tool":"orderStatus","toolCallId":"call_long_detail","input":${LONG_INPUT},"context":{"conversationId":"conv_long","risk":"low","visitor":{"verified":false}}}`;

describe('the terminal UI prints commands that work when pasted', () => {
  it('the detail pane\'s "… N more lines: median-dev show <id>" carries the data dir and env file it needs', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await waitForEventAfter(daemon, 0, 'endpoint', { action: 'synced' }, 30_000);
    const publicHost = new URL(daemon.events().find((e) => isEvent(e, 'tunnel', { state: 'open' }))!.url as string).host;
    await requestVia(world.tunnelServer, publicHost, { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json' }, body: LONG_BODY });
    await daemon.waitForEvent((e) => isEvent(e, 'call') && String(e.toolCallId) === 'call_long_detail', 20_000);

    // A second terminal in another folder: the project's data dir and env file are not its defaults.
    const elsewhere = await useTempDir('median-dev-printed-tui-');
    const pane = await useTmux([process.execPath, CLI_PATH, 'watch', '--data-dir', world.dataDir, '--env', world.envFile], { width: 250, height: 40, cwd: elsewhere });
    await vi.waitFor(async () => expect(await pane.text()).toContain('call_long_detail'), { timeout: 20_000, interval: 100 });
    // Focus the newest call's detail and go to its end.
    await pane.sendKeys('Enter');
    await pane.sendKeys('End');
    let hint = '';
    await vi.waitFor(
      async () => {
        const text = await pane.text();
        const match = /… \d+ more lines: (.+?show call_long_detail\S*(?: \S+)*)/.exec(text);
        expect(match, text).not.toBeNull();
        hint = match![1]!.replace(/[│ ]+$/, '').trim();
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(hint).toContain(`--data-dir ${world.dataDir}`);
    const pasted = await pasteCommand(hint, elsewhere);
    expect(pasted.code, `${hint}\n${pasted.stderr}`).toBe(0);
    expect(pasted.stdout).toContain('call_long_detail');
    expect(await daemon.stop('SIGINT')).toBe(0);
  }, 90_000);
});
