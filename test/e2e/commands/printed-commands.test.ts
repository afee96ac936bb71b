import { describe, expect, it, vi } from 'vitest';
import { pasteCommand, type Pasted } from '../../helpers/paste-command.js';
import { spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

/** The command a line prints after `label`, up to the end of the line (or a closing parenthesis, for hints). */
function printedAfter(text: string, label: string, end = /$/m): string {
  const at = text.indexOf(label);
  expect(at, `"${label}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(at + label.length);
  return rest.slice(0, rest.search(end)).trim();
}

async function run(argv: string[], cwd: string): Promise<Pasted> {
  const cli = spawnCli(argv, { cwd });
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe('every command line the product prints works when pasted', () => {
  it('the demo\'s second-terminal line, replay\'s "Compare the answers", show\'s hints, and the line printed on exit', async () => {
    const projectDir = await useTempDir('median-dev-printed-');
    const dataDir = await useTempDir('median-dev-printed-data-');
    const demo = spawnCli(['demo', '--no-tui', '--data-dir', dataDir, '--inspector-port', '0'], { cwd: projectDir });
    await vi.waitFor(() => expect(demo.stdout()).toContain('synced'), { timeout: 30_000, interval: 100 });

    const second = printedAfter(demo.stdout(), 'From another terminal (replay, show, call, manifest take the same two flags):');
    const calls = await pasteCommand(second, projectDir);
    expect(calls.code, calls.stderr).toBe(0);

    // The flags the line says the other commands take.
    const flags = second.slice(second.indexOf(' --data-dir ')).trim().split(' ');
    const first = await run(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}', '--json', ...flags], projectDir);
    expect(first.code, first.stderr).toBe(0);
    const { toolCallId } = JSON.parse(first.stdout) as { toolCallId: string };
    await vi.waitFor(async () => expect((await run(['show', toolCallId, ...flags], projectDir)).code).toBe(0), { timeout: 10_000, interval: 100 });

    const replay = await run(['replay', toolCallId, ...flags], projectDir);
    expect(replay.code, replay.stderr).toBe(0);
    const compare = await pasteCommand(printedAfter(replay.stdout, 'Compare the answers:'), projectDir);
    expect(compare.code, compare.stderr).toBe(0);

    const shown = await run(['show', toolCallId, ...flags], projectDir);
    const newest = await pasteCommand(printedAfter(shown.stdout, 'Compare the newest with the original:'), projectDir);
    expect(newest.code, newest.stderr).toBe(0);

    // The hint of a diff with nothing to compare: both commands it names work.
    const other = await run(['call', 'lookupCustomer', '--input', '{"email":"ada@example.com"}', '--json', ...flags], projectDir);
    const otherId = (JSON.parse(other.stdout) as { toolCallId: string }).toolCallId;
    await vi.waitFor(async () => expect((await run(['show', otherId, ...flags], projectDir)).code).toBe(0), { timeout: 10_000, interval: 100 });
    const notReplayed = await run(['show', otherId, '--diff', ...flags], projectDir);
    expect(notReplayed.stderr).toContain('[not_a_replay]');
    for (const hinted of [printedAfter(notReplayed.stderr, 'Replay it first (', /\)/), printedAfter(notReplayed.stderr, 'calls marked ↻ in `', /`/)]) {
      const pasted = await pasteCommand(hinted, projectDir);
      expect(pasted.code, `${hinted}\n${pasted.stderr}`).toBe(0);
    }

    // Printed again on exit, and still right once the demo has stopped.
    expect(await demo.stop('SIGINT')).toBe(0);
    const afterwards = await pasteCommand(printedAfter(demo.stderr(), `The demo's calls stay in ${dataDir}:`), projectDir);
    expect(afterwards.code, afterwards.stderr).toBe(0);
  }, 120_000);
});
