/**
 * `npm run bench:proxy`: scenario 1 alone (bare http-proxy-3 vs the recording
 * proxy, the target directly, records not stored and records written raw
 * beside them), rounds interleaved, with the ratio of each round; prints,
 * and writes its own
 * section of BENCHMARKS.md (the full `npm run bench` rewrites scenario 1 in
 * its "measured" section as well).
 *
 *   node dist/bench/proxy-ratio.js [--rounds N] [--requests N] [--no-write]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { median } from './percentiles.js';
import { TARGETS } from './report.js';
import { PROXY_SCENARIOS, PROXY_SCENARIO_LABELS, medianRatio, runProxyThroughput } from './scenarios/proxy-throughput.js';
import { forkServer } from './server-handle.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

export const PROXY_RATIO_HEADING = '## Recording proxy ÷ bare http-proxy-3';
const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(flag(args, '--rounds') ?? 9);
  const requests = Number(flag(args, '--requests') ?? 10_000);
  const machine = describeMachine();
  const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-proxy-'));
  const target = await forkServer({ role: 'target' });
  const loads = [loadavg()[0]!];
  try {
    const result = await runProxyThroughput({ target, dataDir: join(root, 'proxy-data'), requests, warmup: 1_000, rounds, concurrency: 16, log: (line) => {
      loads.push(loadavg()[0]!);
      console.log(line);
    } });
    const ratiosOf = (a: (typeof PROXY_SCENARIOS)[number], b: (typeof PROXY_SCENARIOS)[number]): number[] =>
      result.scenarios[a].runs.map((run, i) => run.requestsPerSecond / result.scenarios[b].runs[i]!.requestsPerSecond);
    const ratios = ratiosOf('recording', 'bare');
    const ratio = medianRatio(result, 'recording', 'bare');
    const floorRatios = ratiosOf('written', 'bare');
    const overFloor = ratiosOf('recording', 'written');
    const cpu = (name: (typeof PROXY_SCENARIOS)[number]): string => (name === 'direct' ? '—' : result.scenarios[name].cpu.proxy.toFixed(0));
    const report = [
      `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}; load average (1 min) ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} during the run (shared machine).`,
      '',
      `\`npm run bench:proxy\` (bench/proxy-ratio.ts): scenario 1 of \`npm run bench\` alone, ${rounds} rounds interleaved (order rotated) after a first round of each scenario that is not measured, each ${1_000} warm-up + ${requests} signed calls at 16 in flight, every party its own process.`,
      '',
      '| scenario | req/s (median run) | each round | proxy CPU µs/req |',
      '| --- | ---: | --- | ---: |',
      ...PROXY_SCENARIOS.map((name) => `| ${PROXY_SCENARIO_LABELS[name]} | ${result.scenarios[name].median.requestsPerSecond.toFixed(0)} | ${result.scenarios[name].runs.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')} | ${cpu(name)} |`),
      '',
      `Recording ÷ bare, round by round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median **${ratio.toFixed(2)}** (goal ≥ ${TARGETS.throughputRatio}: ${ratio >= TARGETS.throughputRatio ? 'met' : '**missed**'}).`,
      '',
      `The floor of storing each call (records written raw: each record's JSON line appended, one write per turn, nothing else; bench/raw-record-writer.ts) ÷ bare, round by round: ${floorRatios.map((r) => r.toFixed(2)).join(', ')}; median **${median(floorRatios).toFixed(2)}**. ` +
        `Recording ÷ that floor: ${overFloor.map((r) => r.toFixed(2)).join(', ')}; median **${median(overFloor).toFixed(2)}**.`,
    ].join('\n');
    console.log(`\n${PROXY_RATIO_HEADING}\n\n${report}\n`);
    if (!args.includes('--no-write')) await writeSection(BENCHMARKS_FILE, PROXY_RATIO_HEADING, report);
  } finally {
    await target.stop();
    await rm(root, { recursive: true, force: true });
  }
}

const FLAGS: BenchFlags = { usage: 'node dist/bench/proxy-ratio.js [--rounds N] [--requests N] [--no-write]', switches: ['--no-write'], values: ['--rounds', '--requests'] };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);
  main().catch((error: unknown) => {
    console.error('median-dev bench:proxy failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
