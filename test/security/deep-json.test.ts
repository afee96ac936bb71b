import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../src/median/index.js';
import { initialState, reduce, type TuiState } from '../../src/tui/index.js';
import { renderFrame } from '../../src/tui/render-frame.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { isEvent, useE2eWorld } from '../helpers/e2e-world.js';
import { makeRecord, makeSnapshot } from '../helpers/record-fixtures.js';
import { deepToolCallBody, sendDeepCall } from '../helpers/deep-call.js';

const DEEP_BODY = deepToolCallBody();

/**
 * One request from the internet whose input nests 200,000 arrays deep. JSON.parse
 * takes it; every recursive reader after it (JSON.stringify, a pretty-printer,
 * a diff, the TUI's detail) would overflow the stack. The daemon keeps
 * answering, and every reader of the record ends with a coded outcome.
 */
describe('a tool call nested 200,000 deep', () => {
  it('the daemon stays up; show, calls, HAR, curl and replay exit with a code, no "This is a bug"', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const proxy = daemon.events().find((e) => isEvent(e, 'proxy'))!.url as string;
    const cli = (args: string[]) => runCliInProcess([...args, '--data-dir', world.dataDir, '--env', world.envFile], { cwd: world.projectDir, env: {} });

    const sent = await sendDeepCall(world, daemon);
    expect(sent.status).toBe(401);
    const record = await vi.waitFor(
      async () => {
        const found = (JSON.parse((await cli(['calls', '--json'])).stdout) as CallRecord[]).find((r) => r.request.body.startsWith('{"tool":"orderStatus","toolCallId":"call_deep"'));
        expect(found).toBeDefined();
        return found!;
      },
      { timeout: 15_000 },
    );

    for (const args of [['show', record.id], ['show', record.id, '--json'], ['calls'], ['export', '--har', '-'], ['show', record.id, '--curl', '--allow-unsigned-original'], ['replay', record.id, '--allow-unsigned-original', '--json']]) {
      const run = await cli(args);
      expect([0, 1], `median-dev ${args.join(' ')}: ${run.stderr}`).toContain(run.code);
      expect(run.stderr).not.toContain('This is a bug');
      expect(run.stderr).not.toContain('Maximum call stack');
    }
    expect((await cli(['show', record.id])).stdout).toContain('call_deep');
    // Still up: the proxy answers, the daemon process runs, a normal call still goes through.
    expect((await fetch(`${proxy}/__median-dev/health`)).status).toBe(200);
    expect(daemon.child.exitCode).toBeNull();
    expect((await cli(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}', '--json'])).code).toBe(0);
    // Six CLI runs over a 400 kB record: 12 s alone, past 20 s in a full run on two cores.
  }, 60_000);
});

describe('the terminal UI on a record nested 200,000 deep', () => {
  it('draws the list and the open detail without throwing', () => {
    const record = makeRecord({ id: 'rec_deep', toolCallId: 'call_deep', tool: 'orderStatus', request: { method: 'POST', path: '/api/median', headers: {}, body: DEEP_BODY } });
    let state: TuiState = reduce(initialState({ width: 100, height: 30, isDemo: false }), { type: 'snapshot', snapshot: makeSnapshot([record]) }).state;
    expect(() => renderFrame(state)).not.toThrow();
    state = reduce(state, { type: 'key', key: 'enter' }).state;
    const frame = renderFrame(state);
    expect(JSON.stringify(frame)).toContain('call_deep');
  });
});
