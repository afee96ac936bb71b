/**
 * Scenario 3: `median-dev calls --json --limit 100` on a store of 100,000
 * records, timed as a real child process (wall clock, Node's start-up
 * included), next to Node's bare start-up and the in-process
 * createCallStore().list({limit: 100}).
 */
import { performance } from 'node:perf_hooks';
import { createCallStore } from '../../src/recorder/index.js';
import { benchChildEnv } from '../child-env.js';
import { median } from '../percentiles.js';
import { runTimed } from '../timed-process.js';
import { CLI_ENTRY } from '../cli-entry.js';
import { binArgv } from '../bin-node-args.js';

export { CLI_ENTRY };

export interface CallsCommandResult {
  storeRecords: number;
  runs: number;
  /** Wall clock of each CLI run, ms. */
  cliMs: number[];
  cliMedianMs: number;
  cliMaxMs: number;
  /** `node -e 0`, median, ms: the floor any CLI pays. */
  nodeStartupMs: number;
  /** In-process list({limit: 100}), median, ms. */
  listMedianMs: number;
  /** In-process count() over the whole store, ms (for scale). */
  countMs: number;
  returned: number;
}

export async function runCallsCommand(options: { dataDir: string; cwd: string; runs: number }): Promise<CallsCommandResult> {
  const store = createCallStore(options.dataDir);
  const t0 = performance.now();
  const storeRecords = await store.count();
  const countMs = performance.now() - t0;

  const env = benchChildEnv();
  const timeoutMs = 30_000;
  const nodeStartup: number[] = [];
  const cliMs: number[] = [];
  let returned = 0;
  for (let i = 0; i < options.runs; i += 1) {
    nodeStartup.push((await runTimed(process.execPath, ['-e', '0'], { cwd: options.cwd, env, timeoutMs })).wallMs);
    const run = await runTimed(
      process.execPath,
      binArgv(CLI_ENTRY, ['calls', '--json', '--limit', '100', '--data-dir', options.dataDir, '--no-env-file']),
      { cwd: options.cwd, env, timeoutMs },
    );
    if (run.code !== 0) throw new Error(`median-dev calls exited ${run.code}: ${run.stderr.slice(0, 500)}`);
    const records = JSON.parse(run.stdout) as unknown[];
    returned = records.length;
    cliMs.push(run.wallMs);
  }

  const list: number[] = [];
  for (let i = 0; i < options.runs; i += 1) {
    const started = performance.now();
    const records = await store.list({ limit: 100 });
    list.push(performance.now() - started);
    if (records.length !== Math.min(100, storeRecords)) throw new Error(`list({limit: 100}) gave ${records.length} records.`);
  }
  return {
    storeRecords,
    runs: options.runs,
    cliMs,
    cliMedianMs: median(cliMs),
    cliMaxMs: Math.max(...cliMs),
    nodeStartupMs: median(nodeStartup),
    listMedianMs: median(list),
    countMs,
    returned,
  };
}
