/**
 * What one part of the daemon costs per call at a steady rate: the daemon as
 * it is against the same daemon started with a part switched off (a
 * variant's extra `start` flags, e.g. `--no-inspector`) and against its
 * `proxy` floor, all in one tunnel world (bench/scenarios/tunnel-world.ts),
 * in interleaved rounds (the order rotated each round). Each round gives the
 * CPU per call of each process, read from /proc before and after (the main
 * thread and the rest apart), and the difference of each variant to the
 * daemon as it is. A diagnosis, not a goal: it writes nothing.
 *
 *   node dist/bench/daemon-parts.js [--variant name=--flag,--flag ...] [--rounds N] [--steady-calls N] [--rate N] [--no-floor]
 */
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';
import { median } from './percentiles.js';
import { callsFor } from './scenarios/tunnel-ab.js';
import { startTunnelWorld } from './scenarios/tunnel-world.js';
import { runLoad } from './load-generator.js';
import { runSteadyRate } from './steady-rate.js';
import { clockTicks } from './soak/process-stats.js';
import { newRunTag } from './signed-calls.js';

interface ThreadCpu {
  mainUs: number;
  restUs: number;
}

/** CPU so far of every thread of `pid` (user + system), the main thread apart. */
async function threadCpuOf(pid: number): Promise<ThreadCpu> {
  let mainUs = 0;
  let restUs = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const us = ((Number(fields[11]) + Number(fields[12])) / clockTicks()) * 1e6;
    if (Number(tid) === pid) mainUs += us;
    else restUs += us;
  }
  return { mainUs, restUs };
}

interface Side {
  name: string;
  host: string;
  pid: number;
}

export async function runDaemonParts(options: {
  variants: Record<string, string[]>;
  rounds: number;
  steadyCalls: number;
  rate: number;
  withFloor: boolean;
  log(line: string): void;
}): Promise<void> {
  const world = await startTunnelWorld({
    server: { kind: 'loopback', socketReuse: 'pool' },
    tag: newRunTag(),
    startTimeoutMs: 60_000,
    floors: options.withFloor ? ['proxy'] : [],
    variants: options.variants,
  });
  try {
    const sides: Side[] = [
      { name: 'daemon', host: world.daemonHost, pid: world.daemon.pid },
      ...Object.entries(world.variants).map(([name, v]) => ({ name, host: v.host, pid: v.daemon.pid })),
      ...(options.withFloor ? [{ name: 'proxy', host: world.floors.proxy!.host, pid: world.floors.proxy!.handle.pid }] : []),
    ];
    const perSide = new Map<string, { total: number[]; main: number[]; rest: number[] }>(sides.map((s) => [s.name, { total: [], main: [], rest: [] }]));
    // Warm every side up alike before the first round.
    for (const side of sides) {
      const calls = callsFor(world, side.host, 3_000);
      await runLoad({ origin: world.tunnelServerUrl, requests: calls.length, warmup: 0, concurrency: 16, recordLatencies: false, requestAt: (i) => calls[i]!, deadlineMs: 120_000 });
    }
    for (let round = 0; round < options.rounds; round += 1) {
      const shift = round % sides.length;
      const order = [...sides.slice(shift), ...sides.slice(0, shift)];
      if (Math.floor(round / sides.length) % 2 === 1) order.reverse();
      for (const side of order) {
        const fresh = callsFor(world, side.host, 64);
        await runLoad({ origin: world.tunnelServerUrl, requests: fresh.length, warmup: 0, concurrency: 16, recordLatencies: false, requestAt: (i) => fresh[i]!, deadlineMs: 60_000 });
        const calls = callsFor(world, side.host, options.steadyCalls);
        const load = loadavg()[0]!;
        const before = await threadCpuOf(side.pid);
        const result = await runSteadyRate({ origin: world.tunnelServerUrl, rate: options.rate, count: options.steadyCalls, maxInFlight: 32, requestAt: (i) => calls[i]! });
        const after = await threadCpuOf(side.pid);
        if (result.failed > 0) options.log(`  ${side.name}: ${result.failed} of ${options.steadyCalls} calls failed (${result.firstError})`);
        const main = (after.mainUs - before.mainUs) / options.steadyCalls;
        const rest = (after.restUs - before.restUs) / options.steadyCalls;
        const kept = perSide.get(side.name)!;
        kept.main.push(main);
        kept.rest.push(rest);
        kept.total.push(main + rest);
        options.log(`  round ${round + 1} ${side.name.padEnd(14)} CPU ${(main + rest).toFixed(0).padStart(4)} µs/call (main ${main.toFixed(0)}, other threads ${rest.toFixed(0)})  late ${result.late}  load ${load.toFixed(2)}`);
      }
    }
    const daemon = perSide.get('daemon')!;
    options.log('\nmedians, µs per call at the steady rate (total / main thread / other threads), and each side − the daemon round by round:');
    for (const side of sides) {
      const kept = perSide.get(side.name)!;
      const diffs = kept.total.map((t, i) => t - daemon.total[i]!);
      options.log(
        `  ${side.name.padEnd(14)} ${median(kept.total).toFixed(0).padStart(4)} / ${median(kept.main).toFixed(0).padStart(4)} / ${median(kept.rest).toFixed(0).padStart(3)}` +
          (side.name === 'daemon' ? '' : `   − daemon: ${diffs.map((d) => d.toFixed(0)).join(', ')} (median ${median(diffs).toFixed(0)})`),
      );
    }
  } finally {
    await world.close();
  }
}

function values(args: string[], name: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i += 1) if (args[i] === name && args[i + 1] !== undefined) found.push(args[i + 1]!);
  return found;
}

const FLAGS: BenchFlags = {
  usage: 'node dist/bench/daemon-parts.js [--variant name=--flag,--flag ...] [--rounds N] [--steady-calls N] [--rate N] [--no-floor]',
  switches: ['--no-floor'],
  values: ['--variant', '--rounds', '--steady-calls', '--rate'],
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  exitUnlessBenchArgsRun(args, FLAGS);
  const variants: Record<string, string[]> = {};
  for (const spec of values(args, '--variant')) {
    const at = spec.indexOf('=');
    if (at <= 0) throw new Error(`--variant takes name=--flag[,--flag], not ${spec}.`);
    variants[spec.slice(0, at)] = spec.slice(at + 1).split(',').filter((flag) => flag !== '');
  }
  if (Object.keys(variants).length === 0) variants['no-inspector'] = ['--no-inspector'];
  runDaemonParts({
    variants,
    rounds: Number(values(args, '--rounds')[0] ?? 6),
    steadyCalls: Number(values(args, '--steady-calls')[0] ?? 4_000),
    rate: Number(values(args, '--rate')[0] ?? 250),
    withFloor: !args.includes('--no-floor'),
    log: (line) => console.log(line),
  }).catch((error: unknown) => {
    console.error('median-dev bench:daemon-parts failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
