import { describe, expect, it, vi } from 'vitest';
import { startChildProcess, type ChildState } from '../../../src/child/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const WAIT = { timeout: 10_000 };

async function useNodeChild(script: string) {
  const lines: Array<{ line: string; stream: 'stdout' | 'stderr' }> = [];
  const states: Array<{ state: ChildState; linesSoFar: number }> = [];
  const runner = useTeardown(
    await startChildProcess({
      command: [process.execPath, '-e', script],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH },
      stopGraceMs: 1_000,
      onOutput: (line, stream) => lines.push({ line, stream }),
      onStateChange: (state) => states.push({ state, linesSoFar: lines.length }),
    }),
    (r) => r.close(),
  );
  const of = (stream: 'stdout' | 'stderr') => lines.filter((l) => l.stream === stream).map((l) => l.line);
  return { runner, lines, states, of };
}

describe('child output', () => {
  it('arrives as whole lines: split chunks, CRLF, UTF-8 cut mid-character, last line without newline', async () => {
    // The child writes in separate ticks so the parent reads separate chunks.
    const script = `
      const tick = () => new Promise((r) => setTimeout(r, 30));
      const out = (data) => new Promise((r) => process.stdout.write(data, r));
      (async () => {
        await out('first line\\n');
        await out('par'); await tick(); await out('tial line\\r\\n');
        await out('crlf split\\r'); await tick(); await out('\\nsecond\\nthird\\n');
        const accent = Buffer.from('caf\\u00e9 ok\\n');
        await out(accent.subarray(0, 4)); await tick(); await out(accent.subarray(4));
        process.stderr.write('to stderr\\r\\n');
        await out('no newline at the end');
        process.exitCode = 3;
      })();
    `;
    const { runner, states, of } = await useNodeChild(script);
    await vi.waitFor(() => expect(runner.state.state).toBe('exited'), WAIT);

    expect(of('stdout')).toEqual([
      'first line',
      'partial line',
      'crlf split',
      'second',
      'third',
      'café ok',
      'no newline at the end',
    ]);
    expect(of('stderr')).toEqual(['to stderr']);
    const pid = (states[1]?.state as { pid: number }).pid;
    expect(states.map((s) => s.state)).toEqual([
      { state: 'starting' },
      { state: 'running', pid },
      { state: 'exited', pid, code: 3, signal: null },
    ]);
    // The exit is reported after the last line, not before it.
    expect(states[2]?.linesSoFar).toBe(8);
  });

  it('a child that exits by itself stays exited (no automatic restart)', async () => {
    const { runner, states, of } = await useNodeChild(`console.log('bye'); process.exit(0)`);
    await vi.waitFor(() => expect(runner.state).toMatchObject({ state: 'exited', code: 0, signal: null }), WAIT);
    expect(of('stdout')).toEqual(['bye']);
    // Stop after an exit is fine and final.
    await runner.stop();
    expect(runner.state).toEqual({ state: 'stopped' });
    expect(states.map((s) => s.state.state)).toEqual(['starting', 'running', 'exited', 'stopped']);
  });

  it('reports the signal of a child killed from outside', async () => {
    const { runner } = await useNodeChild(`console.log('up'); setInterval(() => {}, 1000)`);
    await vi.waitFor(() => expect(runner.state.state).toBe('running'), WAIT);
    const { pid } = runner.state as { pid: number };
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(runner.state).toEqual({ state: 'exited', pid, code: null, signal: 'SIGKILL' }), WAIT);
  });

  it('an onOutput that throws does not break the runner', async () => {
    const runner = useTeardown(
      await startChildProcess({
        command: [process.execPath, '-e', `console.log('a'); console.log('b')`],
        cwd: process.cwd(),
        env: {},
        onOutput: () => {
          throw new Error('consumer bug');
        },
      }),
      (r) => r.close(),
    );
    await vi.waitFor(() => expect(runner.state).toMatchObject({ state: 'exited', code: 0 }), WAIT);
  });
});
