import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { CLI_PATH, runCliInProcess } from '../../helpers/cli-harness.js';
import { useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** `replay` of a high-risk call in a real terminal (tmux): it asks, naming the tool and the input, as the TUI does. */
describe('replay in a terminal', () => {
  it('asks before re-running a high-risk call: n sends nothing, y sends it', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await waitForEventAfter(daemon, 0, 'endpoint', { action: 'synced' }, 30_000);
    const flags = ['--data-dir', world.dataDir, '--env', world.envFile];
    const call = await runCliInProcess(['call', 'refundOrder', '--input', '{"orderNumber":"A1001","amount":12}', '--json', ...flags], { cwd: world.projectDir });
    expect(call.code, call.stderr).toBe(0);
    const { toolCallId } = JSON.parse(call.stdout) as { toolCallId: string };
    await vi.waitFor(async () => expect((await runCliInProcess(['show', toolCallId, '--json', ...flags], { cwd: world.projectDir })).code).toBe(0), { timeout: 5_000, interval: 50 });
    const replaysOf = async () => (JSON.parse((await runCliInProcess(['calls', '--json', ...flags], { cwd: world.projectDir })).stdout) as CallRecord[]).filter((r) => r.replayOf !== null);

    // The pane stays open after the command, so its last words and exit status can be read.
    const replayIn = (answer: string) =>
      useTmux(['sh', '-c', `"$0" "$@"; echo "exit=$?"; sleep 30`, process.execPath, CLI_PATH, 'replay', toolCallId, ...flags], { width: 220 }).then(async (pane) => {
        await vi.waitFor(async () => expect(await pane.text()).toContain('[y/N]'), { timeout: 20_000, interval: 100 });
        const question = await pane.text();
        await pane.sendKeys(answer, 'Enter');
        await vi.waitFor(async () => expect(await pane.text()).toMatch(/exit=\d+/), { timeout: 20_000, interval: 100 });
        return { question, after: await pane.text() };
      });

    const no = await replayIn('n');
    expect(no.question).toContain('Replay refundOrder with input {"orderNumber":"A1001","amount":12}?');
    expect(no.question).toContain('high');
    expect(no.after).toContain('[replay_cancelled]');
    expect(no.after).toContain('exit=1');
    expect(await replaysOf()).toEqual([]);

    const yes = await replayIn('y');
    expect(yes.after).toContain('exit=0');
    expect((await replaysOf()).length).toBe(1);

    // A script (no terminal) still needs --yes.
    const script = await runCliInProcess(['replay', toolCallId, ...flags], { cwd: world.projectDir });
    expect(script.code).toBe(1);
    expect(script.stderr).toContain('replay_needs_confirmation');
    expect(await daemon.stop('SIGINT')).toBe(0);
  }, 90_000);
});
