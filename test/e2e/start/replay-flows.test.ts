import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useE2eWorld, type E2eWorld } from '../../helpers/e2e-world.js';

/** A running daemon (whose syncs record manifest reads) and the CLI run beside it, as from a second terminal. */
async function useRunningProject(): Promise<{ world: E2eWorld; cli: (args: string[]) => ReturnType<typeof runCliInProcess>; json: <T>(args: string[]) => Promise<T> }> {
  const world = await useE2eWorld();
  const daemon = world.start();
  await daemon.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
  const cli = (args: string[]) =>
    runCliInProcess([...args, '--data-dir', world.dataDir, '--env', world.envFile], { cwd: world.projectDir, env: {} });
  const json = async <T>(args: string[]): Promise<T> => {
    const run = await cli([...args, '--json']);
    if (run.code !== 0) throw new Error(`median-dev ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };
  return { world, cli, json };
}

/** `show --json` once the daemon has stored the call (it records after answering). */
async function shown<T = CallRecord & { replays?: Array<Record<string, unknown>> }>(json: <U>(args: string[]) => Promise<U>, id: string, replays = 0): Promise<T> {
  return vi.waitFor(
    async () => {
      const record = await json<CallRecord & { replays?: unknown[] }>(['show', id]);
      expect(record.replays?.length ?? 0).toBeGreaterThanOrEqual(replays);
      return record as T;
    },
    { timeout: 15_000, interval: 100 },
  );
}

describe('replay: a toolCallId is the call the agent made', () => {
  it('a replay after an edited same-id replay re-sends the original, and show lists both replays', async () => {
    const { cli, json } = await useRunningProject();
    const call = await json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}']);
    const original = await shown<CallRecord>(json, call.toolCallId);

    const edited = await json<CallRecord>(['replay', call.toolCallId, '--input', '{"orderNumber":"B2002"}', '--same-id']);
    expect(edited).toMatchObject({ toolCallId: call.toolCallId, replayOf: original.id });
    expect(JSON.parse(edited.request.body).input).toEqual({ orderNumber: 'B2002' });

    const again = await json<CallRecord>(['replay', call.toolCallId, '--at-offset', '-290000']);
    expect(again.replayOf).toBe(original.id);
    expect(JSON.parse(again.request.body).input).toEqual({ orderNumber: 'A1001' });

    // show <toolCallId> is the original, with its replays: when, how, outcome.
    const listed = await shown<CallRecord & { replays: Array<Record<string, unknown>> }>(json, call.toolCallId, 2);
    expect(listed.id).toBe(original.id);
    expect(listed.replays).toEqual([
      expect.objectContaining({ id: edited.id, isSameId: true, isInputEdited: true, offsetMs: null, status: 200 }),
      expect.objectContaining({ id: again.id, isSameId: true, isInputEdited: false, status: 200 }),
    ]);
    expect(Math.round((listed.replays[1]!.offsetMs as number) / 1000)).toBe(-290);
    const text = await cli(['show', call.toolCallId]);
    expect(text.stdout).toContain('Replays (2)');
    expect(text.stdout).toContain('same id, edited input');
    expect(text.stdout).toContain('signed 290 s in the past');

    // --diff on the toolCallId compares its newest replay with the original.
    const diff = await json<{ isSame: boolean }>(['show', call.toolCallId, '--diff']);
    expect(diff).toHaveProperty('isSame');
    // A replay is addressed by its record id: replaying it re-sends its edited input.
    const ofReplay = await json<CallRecord>(['replay', edited.id]);
    expect(ofReplay.replayOf).toBe(edited.id);
    expect(JSON.parse(ofReplay.request.body).input).toEqual({ orderNumber: 'B2002' });
  });

  it('--input takes a new toolCallId by default, so an idempotent route runs the edited call', async () => {
    const { json } = await useRunningProject();
    const call = await json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}']);
    await shown(json, call.toolCallId);
    const edited = await json<CallRecord>(['replay', call.toolCallId, '--input', '{"orderNumber":"B2002"}']);
    expect(edited.toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    const result = JSON.parse(edited.response!.body).result as Record<string, unknown>;
    expect(result).toMatchObject({ orderNumber: 'B2002' });
    expect(result.repeat).toBeUndefined();
  });

  it('--new-id with --same-id is a usage error', async () => {
    const { cli } = await useRunningProject();
    const run = await cli(['replay', 'call_x', '--new-id', '--same-id']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[conflicting_id_flags]');
  });

  it('the manifest’s declared risk counts: a call recorded as low for a high-risk tool needs --yes', async () => {
    const { cli, json } = await useRunningProject();
    // refundOrder is declared high in the manifest the daemon's sync read; the call says low.
    const call = await json<{ toolCallId: string }>(['call', 'refundOrder', '--risk', 'low', '--input', '{"orderNumber":"A1001","amount":20}']);
    expect((await shown(json, call.toolCallId)).risk).toBe('low');
    const refused = await cli(['replay', call.toolCallId, '--new-id']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[replay_needs_confirmation]');
    expect(refused.stderr).toContain('The manifest declares refundOrder risk "high"');
    const confirmed = await json<CallRecord>(['replay', call.toolCallId, '--new-id', '--yes']);
    expect(confirmed.response?.status).toBe(200);
  });
});
