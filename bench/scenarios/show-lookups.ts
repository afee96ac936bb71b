/**
 * `median-dev show <toolCallId>` and `show <record id>` on a store of
 * `records` (scenario 2's records, written by the real recorder, so with its
 * call index), the real CLI as a child process, wall clock with Node's
 * start-up; each round also times `calls --json --limit 20` and `node -e 0`
 * on the same store, interleaved, so the load of the moment is in each ratio.
 * The record looked up is the oldest kept: the last one a scan would reach.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCallStore } from '../../src/recorder/index.js';
import { benchChildEnv } from '../child-env.js';
import { median } from '../percentiles.js';
import { runTimed } from '../timed-process.js';
import { binArgv } from '../bin-node-args.js';
import { CLI_ENTRY } from './calls-command.js';
import { runRecorderAppends } from './recorder-appends.js';

export interface ShowLookupsResult {
  storeRecords: number;
  segments: number;
  rounds: number;
  toolCallIdMs: number[];
  recordIdMs: number[];
  callsLimit20Ms: number[];
  nodeMs: number[];
  /** `show --help`: Node, the bin's chunks and its command-line parser, no lookup. */
  helpMs: number[];
  /**
   * The machine's NODE_EXTRA_CA_CERTS when it sets one (Node reads that file
   * before any script runs), with `node -e 0` and `show <toolCallId>` run
   * again in the same rounds without it: how much of the floor is the machine's.
   */
  extraCaCerts?: { file: string; nodeMs: number[]; toolCallIdMs: number[] };
  /** In-process findWithReplays (what show does: the record, then its replays, through one read of the index), median ms, and the segment lines it read itself. */
  inProcessMs: number;
  inProcessLinesRead: number;
}

export async function runShowLookups(options: { root: string; records: number; rounds: number }): Promise<ShowLookupsResult> {
  const dataDir = join(options.root, 'show-store');
  const cwd = join(options.root, 'show-project');
  await mkdir(cwd, { recursive: true });
  await runRecorderAppends({ dataDir, count: options.records, inFlight: 256 });
  const store = createCallStore(dataDir);
  const all = await store.list({ limit: options.records });
  const oldest = all.at(-1)!;
  const env = benchChildEnv();
  const caFile = env.NODE_EXTRA_CA_CERTS;
  const envWithoutCa = { ...env };
  delete envWithoutCa.NODE_EXTRA_CA_CERTS;
  const cli = async (args: string[], childEnv = env): Promise<number> => {
    const run = await runTimed(process.execPath, binArgv(CLI_ENTRY, [...args, '--data-dir', dataDir, '--no-env-file']), { cwd, env: childEnv, timeoutMs: 60_000 });
    if (run.code !== 0) throw new Error(`median-dev ${args[0]} exited ${run.code}: ${run.stderr.slice(0, 500)}`);
    return run.wallMs;
  };
  const result: ShowLookupsResult = {
    storeRecords: all.length,
    segments: 0,
    rounds: options.rounds,
    toolCallIdMs: [],
    recordIdMs: [],
    callsLimit20Ms: [],
    nodeMs: [],
    helpMs: [],
    ...(caFile ? { extraCaCerts: { file: caFile, nodeMs: [], toolCallIdMs: [] } } : {}),
    inProcessMs: 0,
    inProcessLinesRead: 0,
  };
  for (let round = 0; round < options.rounds; round += 1) {
    result.nodeMs.push((await runTimed(process.execPath, ['-e', '0'], { cwd, env, timeoutMs: 30_000 })).wallMs);
    result.toolCallIdMs.push(await cli(['show', oldest.toolCallId, '--json']));
    result.recordIdMs.push(await cli(['show', oldest.id, '--json']));
    result.callsLimit20Ms.push(await cli(['calls', '--json', '--limit', '20']));
    result.helpMs.push(await cli(['show', '--help']));
    if (result.extraCaCerts) {
      result.extraCaCerts.nodeMs.push((await runTimed(process.execPath, ['-e', '0'], { cwd, env: envWithoutCa, timeoutMs: 30_000 })).wallMs);
      result.extraCaCerts.toolCallIdMs.push(await cli(['show', oldest.toolCallId, '--json'], envWithoutCa));
    }
  }
  const inProcess: number[] = [];
  for (let i = 0; i < options.rounds; i += 1) {
    const started = performance.now();
    await store.findWithReplays(oldest.toolCallId);
    inProcess.push(performance.now() - started);
    result.inProcessLinesRead = store.lastLookupLinesRead();
  }
  result.inProcessMs = median(inProcess);
  result.segments = (await readdir(join(dataDir, 'calls'))).filter((f) => f.endsWith('.jsonl')).length;
  return result;
}
