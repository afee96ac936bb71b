import { describe, expect, it, vi } from 'vitest';
import { startChildProcess, type ChildState } from '../../../src/child/index.js';
import { isProcessAlive } from '../../../src/platform/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const WAIT = { timeout: 10_000 };
const A = 'https://first.loca.lt/api/median';
const B = 'https://second.loca.lt/api/median';

async function useToolsUrlChild(script = `console.log('url=' + process.env.MEDIAN_TOOLS_URL); setInterval(() => {}, 1000)`) {
  const lines: string[] = [];
  const states: ChildState[] = [];
  const runner = useTeardown(
    await startChildProcess({
      command: [process.execPath, '-e', script],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, MEDIAN_TOOLS_URL: A, UNSET_ONE: undefined },
      stopGraceMs: 1_000,
      onOutput: (line) => lines.push(line),
      onStateChange: (state) => states.push(state),
    }),
    (r) => r.close(),
  );
  const waitForLine = (text: string) => vi.waitFor(() => expect(lines).toContain(text), WAIT);
  const pid = () => (runner.state as { pid: number }).pid;
  return { runner, lines, states, waitForLine, pid };
}

describe('restarting the child', () => {
  it('stops the old process and starts a new one with the new environment', async () => {
    const { runner, states, waitForLine, pid } = await useToolsUrlChild();
    await waitForLine(`url=${A}`);
    const firstPid = pid();

    await runner.restart({ PATH: process.env.PATH, MEDIAN_TOOLS_URL: B });

    await waitForLine(`url=${B}`);
    expect(pid()).not.toBe(firstPid);
    expect(isProcessAlive(firstPid)).toBe(false);
    expect(states.map((s) => s.state)).toEqual(['starting', 'running', 'stopped', 'starting', 'running']);
  });

  it('keeps the last environment when restarted without one', async () => {
    const { runner, lines, waitForLine } = await useToolsUrlChild();
    await waitForLine(`url=${A}`);
    await runner.restart({ PATH: process.env.PATH, MEDIAN_TOOLS_URL: B });
    await waitForLine(`url=${B}`);

    await runner.restart();

    await vi.waitFor(() => expect(lines.filter((l) => l === `url=${B}`)).toHaveLength(2), WAIT);
  });

  it('starts again after the child exited by itself', async () => {
    const { runner, lines, waitForLine } = await useToolsUrlChild(
      `console.log('url=' + process.env.MEDIAN_TOOLS_URL); process.exitCode = 1`,
    );
    await vi.waitFor(() => expect(runner.state).toMatchObject({ state: 'exited', code: 1 }), WAIT);

    await runner.restart({ MEDIAN_TOOLS_URL: B });

    await waitForLine(`url=${B}`);
    expect(lines).toEqual([`url=${A}`, `url=${B}`]);
  });

  it('leaves undefined variables out of the environment', async () => {
    const { waitForLine } = await useToolsUrlChild(`console.log('unset=' + ('UNSET_ONE' in process.env))`);
    await waitForLine('unset=false');
  });

  it('a stop asked for while a restart is queued wins: nothing keeps running', async () => {
    const { runner, states, waitForLine, pid } = await useToolsUrlChild();
    await waitForLine(`url=${A}`);
    const firstPid = pid();

    await Promise.all([runner.restart({ MEDIAN_TOOLS_URL: B }), runner.stop()]);

    expect(runner.state).toEqual({ state: 'stopped' });
    expect(isProcessAlive(firstPid)).toBe(false);
    expect(states.map((s) => s.state)).toEqual(['starting', 'running', 'stopped']);
  });

  it('restarts queued one after the other end with one child, running the last environment', async () => {
    const { runner, lines, waitForLine } = await useToolsUrlChild();
    await waitForLine(`url=${A}`);

    await Promise.all([
      runner.restart({ MEDIAN_TOOLS_URL: 'https://x.loca.lt/api/median' }),
      runner.restart({ MEDIAN_TOOLS_URL: B }),
    ]);

    await waitForLine(`url=${B}`);
    expect(runner.state.state).toBe('running');
    expect(lines.at(-1)).toBe(`url=${B}`);
  });
});
