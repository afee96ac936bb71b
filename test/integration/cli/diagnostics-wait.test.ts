import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { runCliInProcess, type InProcessRun } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const KEY = `median_key_${'W8s3c0nds'.repeat(4)}`;

/**
 * `median-dev diagnostics` on a test clock: Median waits 8 s for the answer
 * and keeps its first 2,000 characters (tool-errors.txt). The route is the
 * real example route; its diagnostics answer waits for the test, and the 8 s
 * pass on the clock, so the test takes no real 8 s.
 */
async function diagnosticsOn(clock: ManualClock, answer: Promise<unknown>) {
  let onAsked!: () => void;
  const asked = new Promise<void>((resolve) => (onAsked = resolve));
  const route = useTeardown(
    await startToolRouteServer({
      port: 0,
      key: KEY,
      tools: createDemoTools(),
      diagnostics: () => {
        onAsked();
        return answer;
      },
    }),
    (r) => r.close(),
  );
  const dataDir = await useTempDir('median-dev-diag-wait-');
  let isDone = false;
  const run = runCliInProcess(['diagnostics', '--json', '--target', route.origin, '--data-dir', dataDir, '--no-env-file'], { env: { MEDIAN_KEY: KEY }, clock }).finally(() => {
    isDone = true;
  });
  await asked;
  return { run, isDone: () => isDone };
}

/** Lets the event loop run what it has ready (the answer a settled fetch hands on). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('median-dev diagnostics waits 8 s, on a clock', () => {
  it('still waits at 7,999 ms; at 8,000 ms it gives up: Median got nothing', async () => {
    const clock = createManualClock();
    const { run, isDone } = await diagnosticsOn(clock, new Promise(() => undefined));
    clock.advance(7_999);
    await turn();
    expect(isDone()).toBe(false);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    const result: InProcessRun = await run;
    expect(clock.pendingTimers()).toBe(0);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[tool_call_failed]');
    // The answer's JSON, then the error event's line (--json prints both on stdout).
    const answer = JSON.parse(result.stdout.slice(0, result.stdout.indexOf('\n{"event":"error"')));
    expect(answer).toMatchObject({ status: null, durationMs: 8_000, kept: null, verdict: { kind: 'not-answering', callError: 'The endpoint did not answer in time.' } });
  });

  it('an answer at 7.9 s counts, and Median keeps its first 2,000 characters', async () => {
    const clock = createManualClock();
    let answerNow!: (value: unknown) => void;
    const { run, isDone } = await diagnosticsOn(clock, new Promise((resolve) => (answerNow = resolve)));
    clock.advance(7_900);
    await turn();
    expect(isDone()).toBe(false);
    answerNow({ log: `${'a'.repeat(1_990)}${'b'.repeat(2_000)}` });
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ status: 200, isCut: true, verdict: { kind: 'answered' } });
    expect(answer.kept).toHaveLength(2_000);
    expect(answer.kept).toBe(`{"log":"${'a'.repeat(1_990)}${'b'.repeat(2_000 - 1_990 - 8)}`);
    // The timer is gone once the answer came: nothing is left waiting on the clock.
    expect(clock.pendingTimers()).toBe(0);
  });
});
