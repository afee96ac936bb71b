/**
 * What one part of the daemon costs per call at a steady rate: the daemon as
 * it is against the same daemon started with a part switched off (a
 * variant's extra `start` flags, e.g. `--no-inspector`, or another build of
 * the bin, e.g. a copy of dist/bin kept before a change, or the same daemon
 * whose `call` lines this process, the load generator, reads instead of a
 * relay process: bench/scenarios/tunnel-world.ts) and against its
 * floors (`proxy` unless told), all in one tunnel world (bench/scenarios/tunnel-world.ts),
 * in interleaved rounds (the order rotated each round). Each round gives the
 * CPU per call of each process, read from /proc before and after (the main
 * thread and the rest apart), and the difference of each variant to the
 * daemon as it is, with the stock client for scale. With `--syscalls`, one
 * more steady run per side with `strace -f -c` attached counts each
 * process's system calls per call. With `--churn`, the tunnel server
 * closes sockets as localtunnel-server does (the tunnel bench's churn
 * table) instead of keeping them. A diagnosis, not a goal: it writes
 * nothing.
 *
 *   node dist/bench/daemon-parts.js [--variant name=--flag,--flag ...] [--variant-bin name=path/to/median-dev.js ...] [--variant-read-here name ...] [--rounds N] [--steady-calls N] [--rate N] [--floors proxy,record|none] [--closed-calls N] [--churn] [--syscalls]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';
import { median, summarizeLatencies } from './percentiles.js';
import { callsFor } from './scenarios/tunnel-ab.js';
import { startTunnelWorld, type TunnelVariant } from './scenarios/tunnel-world.js';
import { runLoad } from './load-generator.js';
import { runSteadyRate } from './steady-rate.js';
import { clockTicks } from './soak/process-stats.js';
import { newRunTag } from './signed-calls.js';
import { FLOOR_MODES, type FloorMode } from './floor-tunnel.js';

interface ThreadCpu {
  mainUs: number;
  restUs: number;
  /** The main thread's voluntary context switches: how often it slept and was woken. */
  mainWakes: number;
}

/** CPU so far of every thread of `pid` (user + system), the main thread apart. */
async function threadCpuOf(pid: number): Promise<ThreadCpu> {
  let mainUs = 0;
  let restUs = 0;
  const status = await readFile(`/proc/${pid}/task/${pid}/status`, 'utf8');
  const mainWakes = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
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
  return { mainUs, restUs, mainWakes };
}

interface Side {
  name: string;
  host: string;
  pid: number;
}

export async function runDaemonParts(options: {
  variants: Record<string, TunnelVariant>;
  rounds: number;
  steadyCalls: number;
  rate: number;
  /** The floors measured beside the daemon (bench/floor-tunnel.ts). */
  floors: readonly FloorMode[];
  /** Calls each side takes at 16 in flight before its steady run in each round, as the tunnel bench's closed loop (0: none). */
  closedCalls: number;
  /** Also a round per side with `strace -f -c` (found on PATH) attached: system calls per call, by name. */
  syscalls?: boolean;
  /** The tunnel server closes sockets as localtunnel-server does (its churn), instead of keeping them. */
  churn?: boolean;
  log(line: string): void;
}): Promise<void> {
  const world = await startTunnelWorld({
    server: { kind: 'loopback', socketReuse: options.churn ? 'localtunnel-server' : 'pool' },
    tag: newRunTag(),
    startTimeoutMs: 60_000,
    floors: options.floors,
    variants: options.variants,
  });
  options.log(`tunnel server: ${options.churn ? "sockets closed as localtunnel-server closes them (--churn)" : 'sockets kept'}`);
  try {
    const sides: Side[] = [
      { name: 'daemon', host: world.daemonHost, pid: world.daemon.pid },
      ...Object.entries(world.variants).map(([name, v]) => ({ name, host: v.host, pid: v.daemon.pid })),
      ...options.floors.map((floor) => ({ name: floor, host: world.floors[floor]!.host, pid: world.floors[floor]!.handle.pid })),
      { name: 'stock', host: world.stockHost, pid: world.stock.pid },
    ];
    const perSide = new Map<string, { total: number[]; main: number[]; rest: number[]; wakes: number[]; p99: number[] }>(
      sides.map((s) => [s.name, { total: [], main: [], rest: [], wakes: [], p99: [] }]),
    );
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
        if (options.closedCalls === 0) continue;
        const closed = callsFor(world, side.host, options.closedCalls);
        await runLoad({ origin: world.tunnelServerUrl, requests: closed.length, warmup: 0, concurrency: 16, recordLatencies: false, requestAt: (i) => closed[i]!, deadlineMs: 240_000 });
      }
      for (const side of order) {
        const freshen = () => {
          const fresh = callsFor(world, side.host, 64);
          return runLoad({ origin: world.tunnelServerUrl, requests: fresh.length, warmup: 0, concurrency: 16, recordLatencies: false, requestAt: (i) => fresh[i]!, deadlineMs: 60_000 });
        };
        const freshened = await freshen();
        if (side.name === 'stock' && freshened.failed > 0) {
          // Idle over a minute while the others ran, its tunnel died and the server forgot it (tunnel-world.ts, restartStock): a new one, as tunnel-ab.ts does.
          options.log(`  round ${round + 1} stock: ${freshened.failed} of 64 calls failed (the stock client's tunnel died while idle); a new one, same subdomain`);
          await world.restartStock();
          side.host = world.stockHost;
          side.pid = world.stock.pid;
          await freshen();
        }
        const calls = callsFor(world, side.host, options.steadyCalls);
        const load = loadavg()[0]!;
        const before = await threadCpuOf(side.pid);
        const result = await runSteadyRate({ origin: world.tunnelServerUrl, rate: options.rate, count: options.steadyCalls, maxInFlight: 32, requestAt: (i) => calls[i]! });
        const after = await threadCpuOf(side.pid);
        if (result.failed > 0) options.log(`  ${side.name}: ${result.failed} of ${options.steadyCalls} calls failed (${result.firstError})`);
        const main = (after.mainUs - before.mainUs) / options.steadyCalls;
        const rest = (after.restUs - before.restUs) / options.steadyCalls;
        const wakes = (after.mainWakes - before.mainWakes) / options.steadyCalls;
        const p99 = summarizeLatencies(result.latenciesMs).p99;
        const kept = perSide.get(side.name)!;
        kept.main.push(main);
        kept.rest.push(rest);
        kept.total.push(main + rest);
        kept.wakes.push(wakes);
        kept.p99.push(p99);
        options.log(`  round ${round + 1} ${side.name.padEnd(14)} CPU ${(main + rest).toFixed(0).padStart(4)} µs/call (main ${main.toFixed(0)}, other threads ${rest.toFixed(0)}; main thread woken ${wakes.toFixed(2)} times a call)  p99 ${p99.toFixed(2)} ms  late ${result.late}  load ${load.toFixed(2)}`);
      }
    }
    if (options.syscalls) {
      for (const side of sides) options.log(await syscallCensus(world, side, options));
    }
    const daemon = perSide.get('daemon')!;
    options.log('\nmedians, µs per call at the steady rate (total / main thread / other threads; main-thread wake-ups a call; p99 latency), and each side − the daemon round by round (CPU; p99):');
    for (const side of sides) {
      const kept = perSide.get(side.name)!;
      const diffs = kept.total.map((t, i) => t - daemon.total[i]!);
      const p99Diffs = kept.p99.map((p, i) => p - daemon.p99[i]!);
      options.log(
        `  ${side.name.padEnd(14)} ${median(kept.total).toFixed(0).padStart(4)} / ${median(kept.main).toFixed(0).padStart(4)} / ${median(kept.rest).toFixed(0).padStart(3)}; ${median(kept.wakes).toFixed(2)} wake-ups; p99 ${median(kept.p99).toFixed(2)} ms` +
          (side.name === 'daemon'
            ? ''
            : `   − daemon: ${diffs.map((d) => d.toFixed(0)).join(', ')} (median ${median(diffs).toFixed(0)}); p99 ${p99Diffs.map((d) => d.toFixed(2)).join(', ')} (median ${median(p99Diffs).toFixed(2)})`),
      );
    }
  } finally {
    await world.close();
  }
}

/** System calls per call of every thread of the side's process over a steady run (strace's own cost aside: counts, not times). */
async function syscallCensus(world: Awaited<ReturnType<typeof startTunnelWorld>>, side: Side, options: { steadyCalls: number; rate: number }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'median-dev-strace-'));
  try {
    const out = join(dir, 'counts');
    const tracer = spawn('strace', ['-f', '-c', '-o', out, '-p', String(side.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    // strace says on stderr when it has attached; a missing strace is a spawn error.
    await new Promise<void>((resolve, reject) => {
      let said = '';
      const timer = setTimeout(() => finish(new Error(`strace did not attach to ${side.name} (pid ${side.pid}) within 10 s: ${said.trim() || 'it said nothing'}`)), 10_000);
      const onData = (chunk: Buffer): void => {
        said += chunk.toString('utf8');
        if (said.includes('attached')) finish();
      };
      const onError = (error: Error): void => finish(new Error(`--syscalls needs strace on PATH: ${error.message}`));
      function finish(error?: Error): void {
        clearTimeout(timer);
        tracer.stderr!.off('data', onData);
        tracer.off('error', onError);
        if (error) {
          tracer.kill('SIGKILL');
          reject(error);
        } else resolve();
      }
      tracer.stderr!.on('data', onData);
      tracer.once('error', onError);
    });
    tracer.stderr!.resume();
    const calls = callsFor(world, side.host, options.steadyCalls);
    const result = await runSteadyRate({ origin: world.tunnelServerUrl, rate: options.rate, count: options.steadyCalls, maxInFlight: 32, requestAt: (i) => calls[i]! });
    tracer.kill('SIGINT');
    await once(tracer, 'exit');
    const lines = (await readFile(out, 'utf8')).split('\n');
    const rows: string[] = [];
    let total = 0;
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // % time, seconds, usecs/call, calls, [errors], syscall
      if (cols.length < 5 || !/^[\d.]+$/.test(cols[0]!)) continue;
      const name = cols.at(-1)!;
      const count = Number(cols[3]);
      if (name === 'total') {
        total = count;
        continue;
      }
      rows.push(`${name} ${(count / options.steadyCalls).toFixed(2)}`);
    }
    // Calls that failed (a tunnel the server forgot) make no system calls in the side's process: say so beside the counts.
    const failed = result.failed > 0 ? ` (${result.failed} of ${options.steadyCalls} calls failed: ${result.firstError})` : '';
    return `  ${side.name.padEnd(14)} ${(total / options.steadyCalls).toFixed(2)} system calls a call${failed}: ${rows.join(', ')}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function values(args: string[], name: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i += 1) if (args[i] === name && args[i + 1] !== undefined) found.push(args[i + 1]!);
  return found;
}

const FLAGS: BenchFlags = {
  usage: 'node dist/bench/daemon-parts.js [--variant name=--flag,--flag ...] [--variant-bin name=path/to/median-dev.js ...] [--variant-read-here name ...] [--rounds N] [--steady-calls N] [--rate N] [--floors proxy,record|none] [--closed-calls N] [--churn] [--syscalls]',
  switches: ['--syscalls', '--churn'],
  values: ['--variant', '--variant-bin', '--variant-read-here', '--rounds', '--steady-calls', '--rate', '--floors', '--closed-calls'],
};

type PartsOptions = Omit<Parameters<typeof runDaemonParts>[0], 'log'>;

/** The run the flags ask for; a bad value throws (the entry prints it with the usage). */
function optionsOf(args: string[]): PartsOptions {
  const variants: Record<string, TunnelVariant> = {};
  for (const spec of values(args, '--variant')) {
    const at = spec.indexOf('=');
    if (at <= 0) throw new Error(`--variant takes name=--flag[,--flag], not ${spec}.`);
    variants[spec.slice(0, at)] = { args: spec.slice(at + 1).split(',').filter((flag) => flag !== '') };
  }
  for (const spec of values(args, '--variant-bin')) {
    const at = spec.indexOf('=');
    if (at <= 0) throw new Error(`--variant-bin takes name=<path of another build's bin/median-dev.js>, not ${spec}.`);
    const cliEntry = spec.slice(at + 1);
    if (!existsSync(cliEntry)) throw new Error(`--variant-bin ${spec.slice(0, at)}: ${cliEntry} does not exist (copy dist/bin inside dist/ before the change, so it finds node_modules).`);
    variants[spec.slice(0, at)] = { args: [], cliEntry };
  }

  for (const name of values(args, '--variant-read-here')) {
    if (name === '' || name.startsWith('-')) throw new Error(`--variant-read-here takes a name, not ${name}.`);
    variants[name] = { args: [], callLines: 'here' };
  }

  const floorList = values(args, '--floors')[0] ?? 'proxy';
  const floors = floorList === 'none' ? [] : floorList.split(',');
  const unknown = floors.find((floor) => !(FLOOR_MODES as readonly string[]).includes(floor));
  if (unknown !== undefined) throw new Error(`--floors takes none or some of ${FLOOR_MODES.join(',')}, not ${unknown}.`);
  const count = (flag: string, fallback: number, least: number): number => {
    const given = values(args, flag)[0];
    const value = given === undefined ? fallback : Number(given);
    if (!Number.isInteger(value) || value < least) throw new Error(`${flag} takes a whole number from ${least}, not ${given}.`);
    return value;
  };
  const taken = new Set<string>(['daemon', 'stock', ...floors]);
  for (const name of Object.keys(variants)) {
    if (taken.has(name)) throw new Error(`A variant cannot be called ${name}: that name is a side of its own (daemon, stock and the floors).`);
  }
  return {
    variants,
    rounds: count('--rounds', 6, 1),
    steadyCalls: count('--steady-calls', 4_000, 1),
    rate: count('--rate', 250, 1),
    floors: floors as FloorMode[],
    closedCalls: count('--closed-calls', 0, 0),
    syscalls: args.includes('--syscalls'),
    churn: args.includes('--churn'),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  exitUnlessBenchArgsRun(args, FLAGS);
  let options: PartsOptions;
  try {
    options = optionsOf(args);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\nUsage:\n${FLAGS.usage}\n`);
    process.exit(2);
  }
  runDaemonParts({ ...options, log: (line) => console.log(line) }).catch((error: unknown) => {
    console.error('median-dev bench:daemon-parts failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
