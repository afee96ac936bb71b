import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startChildProcess, type ChildProcessOptions, type ChildState } from '../../../src/child/index.js';
import { isProcessAlive } from '../../../src/platform/index.js';
import { waitForOnClock } from '../../helpers/drive-clock.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const WAIT = { timeout: 10_000 };
const GRACE_MS = 400;
/** The grace of the tests on a manual clock: a minute, so a stop that waited it out in real time would time the test out. */
const CLOCK_GRACE_MS = 60_000;

async function useChild(command: string[], extra: Partial<ChildProcessOptions> = {}) {
  const lines: string[] = [];
  const states: ChildState[] = [];
  const runner = useTeardown(
    await startChildProcess({
      command,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH },
      stopGraceMs: GRACE_MS,
      onOutput: (line) => lines.push(line),
      onStateChange: (state) => states.push(state),
      ...extra,
    }),
    (r) => r.close(),
  );
  /** Waits for `<name>:<pid>` and makes sure that process dies with the test. */
  async function pidPrinted(name: string): Promise<number> {
    let pid = 0;
    await vi.waitFor(() => {
      const line = lines.find((l) => l.startsWith(`${name}:`));
      expect(line).toBeDefined();
      pid = Number(line?.slice(name.length + 1));
    }, WAIT);
    onTestFinished(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    });
    return pid;
  }
  const waitForLine = (text: string) => vi.waitFor(() => expect(lines).toContain(text), WAIT);
  return { runner, lines, states, pidPrinted, waitForLine };
}

const node = (script: string) => [process.execPath, '-e', script];

/** A child that starts a grandchild running `grandchildScript` (sharing its output), then idles. */
const withGrandchild = (grandchildScript: string, childTail = 'setInterval(() => {}, 1000)') =>
  node(`
    const { spawn } = require('node:child_process');
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchildScript)}], { stdio: 'inherit' });
    console.log('grandchild:' + g.pid);
    ${childTail}
  `);

describe('stopping the child', () => {
  it('kills the whole process group: a shell and its background job', async () => {
    const { runner, pidPrinted } = await useChild(['sh', '-c', 'sleep 1000 & echo "grandchild:$!"; echo "child:$$"; wait']);
    const grandchild = await pidPrinted('grandchild');
    const child = await pidPrinted('child');
    expect(isProcessAlive(grandchild)).toBe(true);

    await runner.stop();

    expect(runner.state).toEqual({ state: 'stopped' });
    expect(isProcessAlive(child)).toBe(false);
    expect(isProcessAlive(grandchild)).toBe(false);
  });

  it('kills a node grandchild too', async () => {
    const { runner, pidPrinted, waitForLine } = await useChild(
      withGrandchild(`console.log('grandchild up'); setInterval(() => {}, 1000)`),
    );
    const grandchild = await pidPrinted('grandchild');
    await waitForLine('grandchild up');

    await runner.stop();
    expect(isProcessAlive(grandchild)).toBe(false);
  });

  it('SIGKILLs a child that ignores SIGTERM once the grace period is over (on its clock)', async () => {
    const clock = createManualClock();
    const { runner, states, lines, waitForLine } = await useChild(
      node(`process.on('SIGTERM', () => { console.log('ignored SIGTERM'); setInterval(() => console.log('still here'), 10); }); console.log('ready'); setInterval(() => {}, 1000)`),
      { clock, stopGraceMs: CLOCK_GRACE_MS },
    );
    await waitForLine('ready');
    const { pid } = runner.state as { pid: number };

    const startedAt = clock.now();
    let isStopped = false;
    const stopping = runner.stop().then(() => (isStopped = true));
    await waitForLine('ignored SIGTERM');
    // The grace is the clock's: short of it, the child still runs, however long that takes in real time.
    clock.advance(CLOCK_GRACE_MS - 1);
    // Five of its lines after that: the stop's own looks (every 20 ms) ran meanwhile and found the grace not over.
    const seen = lines.filter((l) => l === 'still here').length;
    await vi.waitFor(() => expect(lines.filter((l) => l === 'still here').length).toBeGreaterThanOrEqual(seen + 5), WAIT);
    expect(isStopped).toBe(false);
    expect(isProcessAlive(pid)).toBe(true);
    clock.advance(1);
    await stopping;
    const tookMs = clock.now() - startedAt;

    expect(tookMs).toBeGreaterThanOrEqual(CLOCK_GRACE_MS);
    expect(isProcessAlive(pid)).toBe(false);
    expect(states.at(-1)).toEqual({ state: 'stopped' });
    expect(states.some((s) => s.state === 'exited')).toBe(false);
  });

  it('SIGKILLs a grandchild that ignores SIGTERM after its parent already left (on its clock)', async () => {
    const clock = createManualClock();
    const { runner, pidPrinted, waitForLine } = await useChild(
      withGrandchild(`process.on('SIGTERM', () => {}); console.log('stubborn up'); setInterval(() => {}, 1000)`),
      { clock, stopGraceMs: CLOCK_GRACE_MS },
    );
    const grandchild = await pidPrinted('grandchild');
    await waitForLine('stubborn up');
    const { pid } = runner.state as { pid: number };

    const startedAt = clock.now();
    const stopping = runner.stop();
    // The parent leaves on SIGTERM; the grandchild stays until the grace on the clock is over.
    await vi.waitFor(() => expect(isProcessAlive(pid)).toBe(false), WAIT);
    expect(isProcessAlive(grandchild)).toBe(true);
    clock.advance(CLOCK_GRACE_MS);
    await stopping;

    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(CLOCK_GRACE_MS);
    expect(isProcessAlive(grandchild)).toBe(false);
  });

  it('stops processes left behind by a child that exited by itself', async () => {
    const clock = createManualClock();
    const { runner, pidPrinted, waitForLine } = await useChild(
      withGrandchild(`console.log('orphan up'); setInterval(() => {}, 1000)`, `g.unref(); setTimeout(() => process.exit(0), 50)`),
      { clock },
    );
    const grandchild = await pidPrinted('grandchild');
    await waitForLine('orphan up');
    // The grandchild holds the output open: the exit is told once the wait for the last output (500 ms, on the clock) is over.
    await waitForOnClock(clock, () => expect(runner.state).toMatchObject({ state: 'exited', code: 0 }));
    expect(isProcessAlive(grandchild)).toBe(true);

    await runner.stop();
    expect(isProcessAlive(grandchild)).toBe(false);
  });

  it('is idempotent: concurrent and repeated stops all resolve, "stopped" is reported once', async () => {
    const { runner, states, waitForLine } = await useChild(node(`console.log('ready'); setInterval(() => {}, 1000)`));
    await waitForLine('ready');
    const { pid } = runner.state as { pid: number };

    await Promise.all([runner.stop(), runner.stop()]);
    await runner.stop();

    expect(isProcessAlive(pid)).toBe(false);
    expect(states.filter((s) => s.state === 'stopped')).toHaveLength(1);
  });

  it('close() stops the child, refuses a later restart and leaves no handle behind', async () => {
    const handlesBefore = countHandles();
    const { runner, pidPrinted } = await useChild(withGrandchild(`setInterval(() => {}, 1000)`));
    const grandchild = await pidPrinted('grandchild');
    const { pid } = runner.state as { pid: number };

    await Promise.all([runner.close(), runner.close()]);

    expect(isProcessAlive(pid)).toBe(false);
    expect(isProcessAlive(grandchild)).toBe(false);
    // Counted before anything else runs a timer (vi.waitFor would add its own);
    // the test runner's own timers come and go, so ours may only lower the count.
    const handlesAfter = countHandles();
    expect(handlesAfter.ProcessWrap).toBe(handlesBefore.ProcessWrap);
    expect(handlesAfter.PipeWrap).toBe(handlesBefore.PipeWrap);
    expect(handlesAfter.Timeout).toBeLessThanOrEqual(handlesBefore.Timeout ?? 0);
    await expect(runner.restart()).rejects.toMatchObject({ code: 'child_closed' });
  });
});

/** Child processes, pipes and timers this process holds. */
function countHandles(): Record<string, number> {
  const counts: Record<string, number> = { ProcessWrap: 0, PipeWrap: 0, Timeout: 0 };
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind in counts) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}
