/**
 * `npm run bench:idle`: scenario 9 alone (an idle daemon's probe requests and
 * wakeups over a minute), printed as JSON.
 *
 *   node dist/bench/idle.js [--seconds <n>]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIdleQuiet } from './scenarios/idle-quiet.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

const FLAGS: BenchFlags = { usage: 'node dist/bench/idle.js [--seconds <n>]', switches: [], values: ['--seconds'] };
exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);

const at = process.argv.indexOf('--seconds');
const seconds = at === -1 ? 60 : Number(process.argv[at + 1]);
const projectDir = await mkdtemp(join(tmpdir(), 'median-dev-bench-idle-'));
try {
  const result = await runIdleQuiet({ projectDir, idleMs: seconds * 1000 });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await rm(projectDir, { recursive: true, force: true });
}
