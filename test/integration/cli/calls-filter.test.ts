import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { parseFilter as coreParseFilter } from '../../../src/median/index.js';
import { parseFilter as tuiParseFilter } from '../../../src/tui/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const KEY = 'median_key_' + 'C4llsF1lt3r'.repeat(3);

async function useRecordedCalls() {
  const dataDir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-calls-')), (dir) => rm(dir, { recursive: true, force: true }));
  const route = useTeardown(await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools({ msPerSecond: 1 }) }), (r) => r.close());
  const common = ['--target', route.origin, '--data-dir', dataDir, '--no-env-file'];
  const run = (args: string[]) => runCliInProcess([...args, ...common], { env: { MEDIAN_KEY: KEY } });
  const json = async <T>(args: string[]): Promise<T> => {
    const result = await run([...args, '--json']);
    if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  };
  return { dataDir, common, run, json };
}

describe('calls speaks the TUI’s filter language', () => {
  it('is one parser for the TUI and the CLI', () => {
    expect(tuiParseFilter).toBe(coreParseFilter);
  });

  it('filters by words, --filter, negation, --since and --until', async () => {
    const { run, json, common } = await useRecordedCalls();
    await json(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}']);
    await json(['call', 'refundOrder', '--input', '{"orderNumber":"A1001","amount":20}']);
    await json(['call', 'lookupCustomer']);

    const tools = async (args: string[]) => (await json<CallRecord[]>(['calls', ...args])).map((r) => r.tool).sort();
    expect(await tools(['tool:order'])).toEqual(['orderStatus', 'refundOrder']);
    expect(await tools(['tool:order', 'risk:high'])).toEqual(['refundOrder']);
    expect(await tools(['--filter', 'tool:order -tool:refund'])).toEqual(['orderStatus']);
    expect(await tools(['verdict:ref'])).toEqual(['lookupCustomer']); // not signed in: refused
    const negated = await runCliInProcess(['calls', '--json', ...common, '--', '-verdict:answered'], { env: { MEDIAN_KEY: KEY } });
    expect((JSON.parse(negated.stdout) as CallRecord[]).map((r) => r.tool)).toEqual(['lookupCustomer']);
    expect(await tools(['A1001', '--since', '1h'])).toEqual(['orderStatus', 'refundOrder']);
    expect(await tools(['--until', '1h'])).toEqual([]);
    expect(await tools(['--since', '2000-01-01', '--until', '2999-01-01', 'status:2xx'])).toHaveLength(3);

    const bad = await run(['calls', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('[invalid_time]');
  });

  it('--follow prints each new matching call as it is recorded, until Ctrl-C', async () => {
    const { common, json } = await useRecordedCalls();
    await json(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}']);
    const follower = spawnCli(['calls', '--follow', '--json', 'tool:order', ...common], { env: { MEDIAN_KEY: KEY } });
    const lines = () => follower.events() as unknown as CallRecord[];
    await follower.waitForEvent((e) => e.tool === 'orderStatus');

    await json(['call', 'lookupCustomer']);
    const later = await json<{ toolCallId: string }>(['call', 'refundOrder', '--input', '{"orderNumber":"B2","amount":5}']);
    await follower.waitForEvent((e) => e.toolCallId === later.toolCallId);
    expect(lines().map((r) => r.tool)).toEqual(['orderStatus', 'refundOrder']);
    expect(await follower.stop('SIGINT')).toBe(0);
  });
});
