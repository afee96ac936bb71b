/**
 * `npm run bench:show`: `median-dev show <toolCallId>` and `show <record id>`
 * on a store of 100,000 records (scenario 2's records), the real CLI as a
 * child process, wall clock including Node's start-up; printed as JSON.
 *
 *   node dist/bench/show.js [--records <n>] [--runs <n>]
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCallStore } from '../src/recorder/index.js';
import { benchChildEnv } from './child-env.js';
import { median } from './percentiles.js';
import { CLI_ENTRY } from './scenarios/calls-command.js';
import { runRecorderAppends } from './scenarios/recorder-appends.js';
import { runTimed } from './timed-process.js';

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const records = flag('--records', 100_000);
const runs = flag('--runs', 5);
const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-show-'));
try {
  const dataDir = join(root, 'store');
  const cwd = join(root, 'project');
  await mkdir(cwd);
  await runRecorderAppends({ dataDir, count: records, inFlight: 256 });
  // The oldest record kept: the one a scan from the newest reaches last.
  const store = createCallStore(dataDir);
  const all = await store.list({ limit: records });
  const oldest = all.at(-1)!;
  const env = benchChildEnv();
  const time = async (id: string): Promise<number[]> => {
    const walls: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const run = await runTimed(process.execPath, [CLI_ENTRY, 'show', id, '--json', '--data-dir', dataDir, '--no-env-file'], { cwd, env, timeoutMs: 60_000 });
      if (run.code !== 0) throw new Error(`median-dev show exited ${run.code}: ${run.stderr.slice(0, 500)}`);
      walls.push(run.wallMs);
    }
    return walls;
  };
  const byToolCallId = await time(oldest.toolCallId ?? oldest.id);
  const byRecordId = await time(oldest.id);
  const nodeStartup: number[] = [];
  for (let i = 0; i < runs; i += 1) nodeStartup.push((await runTimed(process.execPath, ['-e', '0'], { cwd, env, timeoutMs: 30_000 })).wallMs);
  process.stdout.write(
    `${JSON.stringify({ storeRecords: all.length, runs, toolCallIdMedianMs: median(byToolCallId), toolCallIdMs: byToolCallId, recordIdMedianMs: median(byRecordId), recordIdMs: byRecordId, nodeStartupMs: median(nodeStartup) })}\n`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
