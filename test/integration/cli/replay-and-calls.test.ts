import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const KEY = 'median_key_' + 'R3pl4yT3st'.repeat(4);

interface World {
  dataDir: string;
  run(args: string[]): ReturnType<typeof runCliInProcess>;
  json<T = unknown>(args: string[]): Promise<T>;
}

async function useWorld(): Promise<World> {
  const dataDir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-cli-')), (dir) => rm(dir, { recursive: true, force: true }));
  const route = await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools({ msPerSecond: 1 }) });
  useTeardown(route, (r) => r.close());
  const common = ['--target', route.origin, '--data-dir', dataDir, '--no-env-file'];
  const run = (args: string[]) => runCliInProcess([...args, ...common], { env: { MEDIAN_KEY: KEY } });
  return {
    dataDir,
    run,
    async json<T>(args: string[]) {
      const result = await run([...args, '--json']);
      if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
  };
}

describe('call, calls, show, replay and export against the example route', () => {
  let world: World;
  beforeEach(async () => {
    world = await useWorld();
  });

  it('records a test call and finds it by a toolCallId prefix', async () => {
    const answer = await world.json<{ toolCallId: string; status: number; verdict: { kind: string } }>(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    expect(answer.toolCallId).toMatch(/^test_[0-9a-f-]{36}$/);
    expect(answer).toMatchObject({ status: 200, verdict: { kind: 'answered' } });

    const calls = await world.json<CallRecord[]>(['calls']);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolCallId: answer.toolCallId, tool: 'orderStatus', signature: 'valid', replayOf: null });

    const shown = await world.json<CallRecord>(['show', answer.toolCallId.slice(0, 12)]);
    expect(shown.id).toBe(calls[0]!.id);
    expect(shown.request.headers['median-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('replays with the same toolCallId, records replayOf, and diffs the answers', async () => {
    const first = await world.json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    const replay = await world.json<CallRecord>(['replay', first.toolCallId]);
    const original = (await world.json<CallRecord[]>(['calls'])).find((c) => c.replayOf === null)!;
    expect(replay).toMatchObject({ toolCallId: first.toolCallId, replayOf: original.id, signature: 'valid' });
    // The route treats a repeat as a repeat: the same first result, marked.
    expect(JSON.parse(replay.response!.body).result.repeat).toBe(true);

    const diff = await world.json<{ isSame: boolean; lines: Array<{ op: string; text: string }> }>(['show', replay.id, '--diff']);
    expect(diff.isSame).toBe(false);
    expect(diff.lines.some((l) => l.op === '+' && l.text.includes('"repeat": true'))).toBe(true);
  });

  it('--new-id sends call_ + 32 hex, and --input replaces the input', async () => {
    const first = await world.json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    const renamed = await world.json<CallRecord>(['replay', first.toolCallId, '--new-id', '--input', '{"orderNumber":"B-2002"}']);
    expect(renamed.toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    expect(JSON.parse(renamed.request.body).input).toEqual({ orderNumber: 'B-2002' });
    expect(JSON.parse(renamed.response!.body).result.repeat).toBeUndefined();
  });

  it('--at-offset signs at a chosen age: -299000 passes a correct route, -300001 does not', async () => {
    const first = await world.json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    const inside = await world.json<CallRecord>(['replay', first.toolCallId, '--new-id', '--at-offset', '-299000']);
    expect(inside).toMatchObject({ signature: 'valid', response: { status: 200 } });
    const outside = await world.json<CallRecord>(['replay', first.toolCallId, '--new-id', '--at-offset', '-300001']);
    expect(outside).toMatchObject({ signature: 'stale_timestamp', response: { status: 401 }, verdict: { kind: 'not-answering' } });
    expect(JSON.parse(outside.response!.body).error.code).toBe('stale_timestamp');
  });

  it('refuses to replay a high-risk call without --yes, and replays it with --yes', async () => {
    const call = await world.json<{ toolCallId: string }>(['call', 'refundOrder', '--input', '{"orderNumber":"A-1","amount":20}']);
    const refused = await world.run(['replay', call.toolCallId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('replay_needs_confirmation');
    const confirmed = await world.json<CallRecord>(['replay', call.toolCallId, '--yes']);
    expect(confirmed.replayOf).not.toBeNull();
  });

  it('an unknown toolCallId is call_not_found, exit 1', async () => {
    const result = await world.run(['replay', 'call_nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('call_not_found');
  });

  it('bad --input JSON is a usage error', async () => {
    const result = await world.run(['call', 'orderStatus', '--input', '{nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid_input_json');
  });

  it('calls filters by tool and verdict', async () => {
    await world.json(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    await world.json(['call', 'chargeCard', '--input', '{"orderNumber":"A-1","amountCents":100}']).catch(() => undefined);
    const threw = await world.json<CallRecord[]>(['calls', '--verdict', 'threw']);
    expect(threw.every((c) => c.verdict.kind === 'threw')).toBe(true);
    const byTool = await world.json<CallRecord[]>(['calls', '--tool', 'orderStatus']);
    expect(byTool.map((c) => c.tool)).toEqual(['orderStatus']);
    const table = await world.run(['calls']);
    expect(table.stdout).toMatch(/TOOL CALL ID/);
    expect(table.stdout).toContain('orderStatus');
  });

  it('export --har writes a HAR 1.2 log of the calls', async () => {
    await world.json(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    const file = join(world.dataDir, 'calls.har');
    const result = await world.run(['export', '--har', file]);
    expect(result.code).toBe(0);
    const har = JSON.parse(await readFile(file, 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries).toHaveLength(1);
    expect(har.log.entries[0].request.method).toBe('POST');
    expect(JSON.stringify(har)).not.toContain(KEY);
  });

  it('show --curl prints a command signed for five minutes', async () => {
    const call = await world.json<{ toolCallId: string }>(['call', 'orderStatus', '--input', '{"orderNumber":"A-1001"}']);
    const result = await world.run(['show', call.toolCallId, '--curl']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/median-signature: t=\d+,v1=[0-9a-f]{64}/);
    expect(result.stdout).toContain('curl');
  });
});
