/**
 * `npm run bench:show`: `median-dev show <toolCallId>` and `show <record id>`
 * on a store of 100,000 records (bench/scenarios/show-lookups.ts: the real
 * CLI as a child process, next to `calls --limit 20` and `node -e 0` in the
 * same rounds); printed as JSON.
 *
 *   node dist/bench/show.js [--records <n>] [--runs <n>]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShowLookups } from './scenarios/show-lookups.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

const FLAGS: BenchFlags = { usage: 'node dist/bench/show.js [--records <n>] [--runs <n>]', switches: [], values: ['--records', '--runs'] };
exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-show-'));
try {
  const result = await runShowLookups({ root, records: flag('--records', 100_000), rounds: flag('--runs', 5) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
