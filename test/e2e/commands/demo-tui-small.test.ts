import { describe, expect, it, vi } from 'vitest';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** What a shell makes of pasted lines: a line ending in `\` goes on with the next. */
const pasted = (lines: string[]) => lines.map((line) => line.trimEnd()).join('\n').replace(/\\\n/g, '');
/**
 * The rows inside the `?` box, without its border. capture-pane gives the
 * border's line-drawing cells as the characters blessed sent for them
 * (`l q k x m j`, the DEC special graphics set), or as `┌ ─ ┐ │ └ ┘`.
 */
function boxRows(text: string): string[] {
  const rows = text.split('\n');
  const top = rows.findIndex((row) => / Keys /.test(row));
  if (top < 0) return [];
  const left = rows[top]!.indexOf(' Keys ') - 2;
  const right = Math.max(rows[top]!.lastIndexOf('k'), rows[top]!.lastIndexOf('┐'));
  const inside: string[] = [];
  for (const row of rows.slice(top + 1)) {
    if (row[left] === 'm' || row[left] === '└') break;
    inside.push(row.slice(left + 2, right - 1).trimEnd());
  }
  return inside;
}

/** The demo in a real 80×24 terminal (tmux): what must be copied is whole, the help fits and scrolls. */
describe('the demo at 80×24', () => {
  it('wraps the second-terminal command, keeps the id column, and scrolls ? down to the command', async () => {
    const dataDir = await useTempDir('median-dev-demo-small-');
    const pane = await useTmux([process.execPath, CLI_PATH, 'demo', '--data-dir', dataDir, '--inspector-port', '0'], {
      width: 80,
      height: 24,
      // The agent's pace is not what this test is about: a call row comes in 0.3 s, not 2 s.
      env: { MEDIAN_DEV_DEMO_INTERVAL_MS: '300' },
    });
    const command = `calls --data-dir ${dataDir} --env ${dataDir}/demo.env`;

    // The footer: the command on its own lines, whole when pasted.
    await vi.waitFor(async () => {
      const rows = (await pane.text()).split('\n');
      const from = rows.findIndex((row) => row.startsWith('From another terminal:'));
      expect(from).toBeGreaterThan(0);
      expect(pasted(rows.slice(from))).toContain(command);
    }, { timeout: 20_000, interval: 100 });

    // A tool call's row shows a prefix of its id.
    await vi.waitFor(async () => expect(await pane.text()).toMatch(/ (call|apr)_[0-9a-f]{6,}… /), { timeout: 20_000, interval: 100 });
    expect(await pane.text()).toContain('CALL ID');

    await pane.sendKeys('?');
    await vi.waitFor(async () => expect(boxRows(await pane.text()).at(-1)).toContain('any other key closes this'), { timeout: 5_000, interval: 100 });
    await pane.sendKeys('End');
    await vi.waitFor(async () => {
      const rows = boxRows(await pane.text());
      expect(rows.at(-1)).toContain('any other key closes this');
      expect(pasted(rows.slice(rows.findIndex((row) => row.startsWith('From another terminal:')), -1))).toContain(command);
    }, { timeout: 5_000, interval: 100 });
    await pane.sendKeys('Escape', 'q');
  }, 60_000);
});
