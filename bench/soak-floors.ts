/**
 * `npm run soak:floors` (not part of `npm test`): the soak's RSS growth of
 * the daemon beside its floors, under the same load in the same run, so a
 * miss of the soak's memory goal can be told from what any recording tunnel
 * of this shape grows by (see soak/soak-floors-options.ts for the variants).
 * For each: RSS at start / right after the last call (and VmHWM) / after
 * the idle readings, CPU per attempt, the 1-minute load average before and
 * after, and what the RSS is made of (soak/memory-probe.ts: V8's heap by
 * space, malloc, file pages; the last reading after a full GC: the live heap).
 *
 *   node dist/bench/soak-floors.js [--variants daemon,record,stock] [--rounds n] [--calls 30000] [--rate 250] …
 */
import { loadavg } from 'node:os';
import { FLOORS_USAGE, parseSoakFloorsOptions, type SoakFloorsOptions, type SoakVariant } from './soak/soak-floors-options.js';
import { SoakUsageError } from './soak/soak-options.js';
import { runFloorSoak } from './soak/floor-soak-run.js';
import { runSoak } from './soak/soak-run.js';
import { describeMemory, type MemoryReading } from './soak/memory-reading.js';
import type { ProcessStats } from './soak/process-stats.js';
import type { IdleReadings } from './soak/idle-readings.js';
import type { SoakWorld } from './soak/soak-world.js';
import { settleMain } from './soak/settle-main.js';

const log = (line: string): void => console.log(line);

let options: Readonly<SoakFloorsOptions>;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(FLOORS_USAGE);
  process.exit(0);
}
try {
  options = parseSoakFloorsOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof SoakUsageError)) throw error;
  console.error(`${error.message}\n\n${FLOORS_USAGE}`);
  process.exit(2);
}

interface VariantRun {
  round: number;
  variant: SoakVariant;
  loadBefore: number;
  loadAfter: number;
  start: ProcessStats;
  end: ProcessStats;
  idle: IdleReadings | undefined;
  attempts: number;
  answered: number;
  /** Answered calls missing from the store (the daemon only). */
  lost: number | undefined;
  memory: { start?: MemoryReading; end?: MemoryReading; idle?: MemoryReading };
  /** RSS every 5 s and at each drop, MiB. */
  along: number[];
}

const stopper = new AbortController();
let world: SoakWorld | undefined;
const hardStop = setTimeout(() => stopper.abort(new Error(`still running after ${options.soak.maxMinutes} minutes (the hard stop)`)), options.soak.maxMinutes * 60_000);
hardStop.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopper.signal.aborted) {
      world?.killNow();
      process.exit(1);
    }
    stopper.abort(new Error(signal));
  });
}

async function runVariant(variant: SoakVariant, round: number): Promise<VariantRun> {
  const loadBefore = loadavg()[0]!;
  log(`round ${round}, ${variant.name} (load ${loadBefore.toFixed(2)})`);
  if (variant.kind === 'daemon') {
    const r = await runSoak(options.soak, { signal: stopper.signal, log, onWorld: (w) => (world = w), nodeArgs: variant.nodeArgs });
    world = undefined;
    return {
      round, variant, loadBefore, loadAfter: loadavg()[0]!, start: r.daemon.start, end: r.daemon.end, idle: r.daemon.idle,
      attempts: r.load.attempts, answered: r.calls.answered, lost: r.calls.lost, memory: r.daemon.memory,
      along: [...r.daemon.samples].sort((a, b) => a.atMs - b.atMs).map((x) => x.rssMiB),
    };
  }
  const r = await runFloorSoak(variant.kind, options.soak, { signal: stopper.signal, log, nodeArgs: variant.nodeArgs });
  return { round, variant, loadBefore, loadAfter: loadavg()[0]!, start: r.start, end: r.end, idle: r.idle, attempts: r.load.attempts, answered: r.answered, lost: undefined, memory: r.memory, along: [...r.samples].sort((a, b) => a.atMs - b.atMs).map((x) => x.rssMiB) };
}

const mib = (n: number): string => n.toFixed(1);
const delta = (n: number, from: number): string => `${mib(n)} (${n - from >= 0 ? '+' : ''}${(n - from).toFixed(1)})`;

function report(runs: readonly VariantRun[]): string {
  const lines = [
    `${options.soak.calls.toLocaleString('en-US')} calls at ${options.soak.rate}/s per variant, a drop every ${options.soak.dropEvery.toLocaleString('en-US')}, ≤ ${options.soak.concurrency} in flight, ${options.soak.idleSeconds} s idle after; RSS in MiB (VmRSS, VmHWM).`,
    '',
    '| round | variant | load before → after | start | end (Δ) | peak | after idle (Δ) | lowest idle | CPU µs per answered call | answered / lost |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of runs) {
    const idle = r.idle ? delta(r.idle.last.rssMiB, r.start.rssMiB) : '—';
    const lowest = r.idle && r.idle.rssMiB.length > 0 ? mib(Math.min(...r.idle.rssMiB)) : '—';
    // Per answered call: an attempt refused during an outage is answered by the tunnel server, never reaching the process.
    const cpuUs = ((r.end.cpuSeconds - r.start.cpuSeconds) * 1e6) / Math.max(1, r.answered);
    lines.push(
      `| ${r.round} | ${r.variant.name} | ${r.loadBefore.toFixed(2)} → ${r.loadAfter.toFixed(2)} | ${mib(r.start.rssMiB)} | ${delta(r.end.rssMiB, r.start.rssMiB)} | ${mib(r.end.peakRssMiB)} | ${idle} | ${lowest} | ${cpuUs.toFixed(0)} | ${r.answered}${r.lost === undefined ? '' : ` / ${r.lost}`} |`,
    );
  }
  lines.push('', 'What the RSS is made of (memory-probe.ts; MiB):');
  for (const r of runs) {
    lines.push(`- round ${r.round} ${r.variant.name}:`);
    lines.push(`  - start: ${describeMemory(r.memory.start)}`);
    lines.push(`  - end: ${describeMemory(r.memory.end)}`);
    lines.push(`  - after idle: ${describeMemory(r.memory.idle)}`);
    lines.push(`  - RSS along the way: ${r.along.map(mib).join(', ')}`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const runs: VariantRun[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    const order = round % 2 === 1 ? options.variants : [...options.variants].reverse();
    for (const variant of order) {
      runs.push(await runVariant(variant, round));
      log(report(runs.slice(-1)).split('\n').slice(4, 5).join('\n'));
    }
  }
  log(`\n## Soak floors\n\n${report(runs)}\n`);
  return 0;
}

settleMain(main(), { hardStop, failed: 'median-dev soak floors failed' });
