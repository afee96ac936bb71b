/**
 * `npm run bench:test`: `median-dev test` on 1,000 saved calls against the
 * example route on 127.0.0.1 (scenario 9), also run as the last part of
 * `npm run bench`. The calls are written as files with no expectation yet;
 * `test --update` takes the route's answers (the first run, which also sends
 * each call twice to find its noise), then plain `test` runs are timed as a
 * CI would run them: the CLI's whole wall clock, start to exit. The route's
 * own time is measured alone too (the same 1,000 signed POSTs from this
 * process, one after the other), so the report says how much `test` adds.
 *
 *   node dist/bench/saved-calls.js [--quick] [--no-write]
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { resolveToolSecret, type ToolCall } from '../src/median/index.js';
import { sendSignedCall } from '../src/replay/index.js';
import { SAVED_CALL_FORMAT, serializeSavedCall, type SavedCall } from '../src/saved-calls/index.js';
import { findFreePort } from '../src/shared/index.js';
import { writeSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { CLI_ENTRY } from './cli-entry.js';
import { binArgv } from './bin-node-args.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

export const SAVED_CALLS_SECTION_HEADING = '## `median-dev test` on 1,000 saved calls';
const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
const CLI = CLI_ENTRY;
const ROUTE = fileURLToPath(new URL('../examples/tools-route/server.js', import.meta.url));
const KEY = `median_key_${'BenchSavedCalls0'.repeat(3)}`;
const TARGET_SECONDS = 5;
const CONCURRENCY = 4;

/** The example route's quick tools, in turn: answered, refused, reviewed, unknown outcome, threw. */
function callOf(i: number): Pick<ToolCall, 'tool' | 'input'> & { risk: ToolCall['context']['risk'] } {
  switch (i % 5) {
    case 0:
      return { tool: 'orderStatus', input: { orderNumber: `A${1000 + i}` }, risk: 'low' };
    case 1:
      return { tool: 'lookupCustomer', input: {}, risk: 'low' };
    case 2:
      return { tool: 'cancelOrder', input: { orderNumber: `A${1000 + i}`, reason: 'too_slow' }, risk: 'reviewed' };
    case 3:
      return { tool: 'refundOrder', input: { orderNumber: `A${1000 + i}`, amount: i % 2 === 0 ? 20 : 900 }, risk: 'high' };
    default:
      return { tool: 'chargeCard', input: { orderNumber: `A${1000 + i}`, amount: 5 }, risk: 'medium' };
  }
}

function savedCall(i: number): SavedCall {
  const { tool, input, risk } = callOf(i);
  const id = i.toString(16).padStart(32, '0');
  return {
    format: SAVED_CALL_FORMAT,
    name: `${tool}-${String(i).padStart(4, '0')}`,
    call: { tool, toolCallId: `call_${id}`, input, context: { conversationId: `conv_${id}`, risk, visitor: { verified: false } } },
    // No expectation yet: `test --update` takes the route's answer.
    expect: { status: 0, verdict: 'answered', agentSees: '', warnings: [], headers: {} },
    savedFrom: { recordId: null, receivedAt: null, visitor: 'placeholders' },
  };
}

/** Runs the built CLI in `cwd`; resolves with its exit code and wall clock. */
function runCli(argv: string[], cwd: string): Promise<{ code: number | null; ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, binArgv(CLI, argv), { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, MEDIAN_KEY: KEY }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, ms: performance.now() - started, stdout }));
  });
}

async function waitForRoute(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await fetch(url).then(() => true, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the example route did not answer at ${url}`);
}

export interface SavedCallsBenchResult {
  calls: number;
  firstRunMs: number;
  runsMs: number[];
  /** The same runs with `--concurrency 4`. */
  concurrentMs: number[];
  /** The route alone, measured right before each default run. */
  routeMs: number[];
}

export async function runSavedCallsBench(options: { root: string; isQuick: boolean; write: boolean; log(line: string): void }): Promise<SavedCallsBenchResult> {
  const machine = describeMachine();
  const count = options.isQuick ? 100 : 1_000;
  const rounds = options.isQuick ? 1 : 3;
  options.log(`\n9. median-dev test on ${count.toLocaleString('en')} saved calls (example route on 127.0.0.1), ${rounds} timed runs`);
  const project = join(options.root, 'saved-calls');
  await mkdir(join(project, 'median-calls'), { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(join(project, 'median-calls', `${savedCall(i).name}.json`), serializeSavedCall(savedCall(i)));
  const port = await findFreePort();
  const target = `http://127.0.0.1:${port}`;
  const route = spawn(process.execPath, [ROUTE], { env: { PATH: process.env.PATH, PORT: String(port), MEDIAN_KEY: KEY }, stdio: 'ignore' });
  try {
    await waitForRoute(`${target}/api/median`);
    const first = await runCli(['test', '--target', target, '--update', '--no-env-file'], project);
    if (first.code !== 0) throw new Error(`test --update exited ${first.code}:\n${first.stdout.slice(-2_000)}`);
    options.log(`  first run (test --update, each call sent twice for noise): ${(first.ms / 1000).toFixed(2)} s`);
    // The route alone: the same calls, signed and sent one after the other from here, right before each run (the load moves).
    const secret = resolveToolSecret({ medianKey: KEY });
    const routeAlone = async (): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < count; i++) {
        const { tool, input, risk } = callOf(i);
        const body = JSON.stringify({ tool, toolCallId: `call_${(i + 1e6).toString(16).padStart(32, '0')}`, input, context: { conversationId: 'conv_bench', risk, visitor: { verified: false } } });
        await sendSignedCall({ url: `${target}/api/median`, body, secret });
      }
      return performance.now() - started;
    };
    const runsMs: number[] = [];
    const routeMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      routeMs.push(await routeAlone());
      options.log(`  the route alone (${count} signed POSTs in a row from one process): ${(routeMs.at(-1)! / 1000).toFixed(2)} s`);
      const run = await runCli(['test', '--target', target, '--no-env-file'], project);
      if (run.code !== 0) throw new Error(`test exited ${run.code}:\n${run.stdout.slice(-2_000)}`);
      runsMs.push(run.ms);
      options.log(`  test run ${round + 1}: ${(run.ms / 1000).toFixed(2)} s`);
    }
    const concurrentMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const run = await runCli(['test', '--target', target, '--no-env-file', '--concurrency', String(CONCURRENCY)], project);
      if (run.code !== 0) throw new Error(`test --concurrency exited ${run.code}:\n${run.stdout.slice(-2_000)}`);
      concurrentMs.push(run.ms);
      options.log(`  test --concurrency ${CONCURRENCY} run ${round + 1}: ${(run.ms / 1000).toFixed(2)} s`);
    }
    const result = { calls: count, firstRunMs: first.ms, runsMs, concurrentMs, routeMs };
    const loadAfter = Math.round((loadavg()[0] ?? 0) * 100) / 100;
    const report = formatReport(result, `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}; load average (1 min) ${machine.loadAverage} at the start, ${loadAfter} at the end.`);
    options.log(`\n${SAVED_CALLS_SECTION_HEADING}\n\n${report}\n`);
    if (options.write && !options.isQuick) {
      await writeSection(BENCHMARKS_FILE, SAVED_CALLS_SECTION_HEADING, report);
      options.log(`Written to ${BENCHMARKS_FILE} (section "${SAVED_CALLS_SECTION_HEADING.slice(3)}").`);
    }
    return result;
  } finally {
    route.kill('SIGTERM');
  }
}

function formatReport(result: SavedCallsBenchResult, machine: string): string {
  const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  const median = medianOf(result.runsMs);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const met = median / 1000 < TARGET_SECONDS ? 'met' : '**missed**';
  return [
    `Run with \`npm run bench:test\` (bench/saved-calls.ts; also the last part of \`npm run bench\`). Machine: ${machine}`,
    '',
    `${result.calls.toLocaleString('en')} saved calls of the example route's quick tools (orderStatus, lookupCustomer, cancelOrder, refundOrder, chargeCard: answered, refused, unknown-outcome and threw), one file each under median-calls/, run by the built CLI against the route on 127.0.0.1, one call after the other (the default; \`--concurrency 4\` in its own row); the time is the CLI's whole wall clock (start, reading and parsing ${result.calls.toLocaleString('en')} files, the manifest read and checks, ${result.calls.toLocaleString('en')} signed sends and comparisons, exit). The machine is shared: the load average above is other engineers' work on the same 2 cores, and the route alone shows how much of the time the machine, not \`test\`, takes.`,
    '',
    '| what | target | measured | |',
    '| --- | --- | --- | --- |',
    `| \`median-dev test\` on ${result.calls.toLocaleString('en')} saved calls (median of ${result.runsMs.length}) | < ${TARGET_SECONDS} s | ${s(median)} (runs: ${result.runsMs.map(s).join(', ')}) | ${met} |`,
    `| \`median-dev test --concurrency ${CONCURRENCY}\` (median of ${result.concurrentMs.length}) | — | ${s(medianOf(result.concurrentMs))} (runs: ${result.concurrentMs.map(s).join(', ')}) | |`,
    `| the first run, \`test --update\` (every call sent twice to find its noise) | — | ${s(result.firstRunMs)} | |`,
    `| the route alone: the same calls signed and sent in a row from one process, right before each run (median of ${result.routeMs.length}) | — | ${s(medianOf(result.routeMs))} (runs: ${result.routeMs.map(s).join(', ')}) | |`,
    '',
    `What \`test\` adds over the route's own time, run by run: ${result.runsMs.map((ms, i) => s(Math.max(0, ms - (result.routeMs[i] ?? 0)))).join(', ')} (the CLI's start, reading the files, the manifest, judging and comparing; the rest is the route and the machine).`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-test-'));
  try {
    await runSavedCallsBench({ root, isQuick: args.has('--quick'), write: !args.has('--no-write'), log: (line) => console.log(line) });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const FLAGS: BenchFlags = { usage: 'node dist/bench/saved-calls.js [--quick] [--no-write]', switches: ['--quick', '--no-write'], values: [] };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);
  main().catch((error: unknown) => {
    console.error('median-dev bench:test failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
