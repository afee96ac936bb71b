/**
 * `npm run bench:tunnel`: through the tunnel, the stock localtunnel client vs
 * the real median-dev daemon in the default configuration (tunnel-ab.ts),
 * against the loopback tunnel server keeping its sockets (`pool`) and
 * modelling localtunnel-server's socket churn (`localtunnel-server`); also
 * the last part of `npm run bench`.
 *
 *   node dist/bench/tunnel.js [--quick] [--no-write] [--rounds N] [--rss-calls N]
 *     [--only kept|churn] [--floors <list>|none] [--steady-calls N]
 *     [--tunnel-host http://127.0.0.1:<port> --tunnel-domain <domain>]
 *
 * --only, --floors and --steady-calls are for a look at one figure (say the
 * p99 at 250/s with sockets kept, stock against daemon, over more calls than
 * a round's default 5,000) in a few minutes: such a run is never written.
 *
 * --tunnel-host runs the same A/B against a localtunnel server already
 * running there (the real one, to check that the churn mode models it),
 * after the loopback runs; its rows are printed, not written.
 */
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import type { ServerHandle } from './server-handle.js';
import { formatTunnelAb, isTunnelAbMet } from './scenarios/tunnel-ab-report.js';
import { runTunnelAb, type TunnelAbResult } from './scenarios/tunnel-ab.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';
import { FLOOR_MODES, type FloorMode } from './floor-tunnel.js';

export const TUNNEL_SECTION_HEADING = '## Through the tunnel: stock localtunnel client vs median-dev';
const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

export interface TunnelBenchOptions {
  isQuick: boolean;
  write: boolean;
  rounds?: number;
  /** Calls each client takes in the first world, for the RSS rows (default 100,000; 0: none). */
  rssCalls?: number;
  external?: { url: string; domain: string };
  /** One loopback section alone: sockets kept (`kept`) or localtunnel-server's churn (`churn`). */
  only?: 'kept' | 'churn';
  /** The floors measured (default all). */
  floors?: readonly FloorMode[];
  /** Calls per round at the steady rate (default 5,000; 1,000 with --quick). */
  steadyCalls?: number;
  log(line: string): void;
}

/** `target` and `root` are what bench/run.ts hands every scenario; this one starts its own world. */
export async function runTunnelBench(options: TunnelBenchOptions & { target?: ServerHandle; root?: string; profile?: boolean }): Promise<TunnelAbResult[]> {
  const machine = describeMachine();
  // Five: a round's p99 at 250/s and its closed-loop req/s under churn move by
  // ±3 ms and ±0.2 from round to round on a shared 2-core host, for every
  // side; the median of three still followed one slow round (BENCHMARKS.md).
  const rounds = options.rounds ?? (options.isQuick ? 1 : 5);
  const sizes = options.isQuick
    ? { requests: 2_000, warmup: 500, steadyCalls: options.steadyCalls ?? 1_000 }
    : { requests: 5_000, warmup: 1_000, steadyCalls: options.steadyCalls ?? 5_000 };
  const common = { rounds, concurrency: 16, rate: 250, ...sizes, ...(options.floors ? { floors: options.floors } : {}), log: options.log };
  options.log(`\n7. Through the tunnel, stock client vs the daemon: ${rounds} interleaved rounds × (${sizes.warmup} + ${sizes.requests} at 16 in flight, then ${sizes.steadyCalls} at 250/s)`);
  const results: TunnelAbResult[] = [];
  const rssCalls = options.rssCalls ?? (options.isQuick ? 0 : 100_000);
  if (options.only !== 'churn') {
    results.push(await runTunnelAb({ ...common, ...(rssCalls > 0 ? { rssCalls } : {}), server: { kind: 'loopback', socketReuse: 'pool' }, label: 'loopback server, sockets kept' }));
  }
  if (options.only !== 'kept') {
    results.push(await runTunnelAb({ ...common, server: { kind: 'loopback', socketReuse: 'localtunnel-server' }, label: "loopback server, localtunnel-server's churn" }));
  }
  const report = formatTunnelAb(results, `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}`);
  options.log(`\n${TUNNEL_SECTION_HEADING}\n\n${report}\n`);
  // A partial run (one section, some floors, another round size) is never the section BENCHMARKS.md shows.
  const isPartial = options.only !== undefined || options.floors !== undefined || options.steadyCalls !== undefined;
  if (options.write && !options.isQuick && !isPartial) {
    await writeSection(BENCHMARKS_FILE, TUNNEL_SECTION_HEADING, report);
    options.log(`Written to ${BENCHMARKS_FILE} (section "${TUNNEL_SECTION_HEADING.slice(3)}").`);
  }
  if (options.external) {
    const real = await runTunnelAb({ ...common, server: { kind: 'external', ...options.external }, label: `tunnel server at ${options.external.url}` });
    options.log(`\n${formatTunnelAb([real], 'external server (printed only)')}`);
    results.push(real);
  }
  options.log(`Goals ${results.every(isTunnelAbMet) ? 'met' : 'not all met'}.`);
  return results;
}

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const host = flag(args, '--tunnel-host');
  const domain = flag(args, '--tunnel-domain');
  if ((host === undefined) !== (domain === undefined)) throw new Error('--tunnel-host and --tunnel-domain go together.');
  const rounds = flag(args, '--rounds');
  const rssCalls = flag(args, '--rss-calls');
  const only = flag(args, '--only');
  if (only !== undefined && only !== 'kept' && only !== 'churn') throw new Error('--only takes kept or churn.');
  const floors = flag(args, '--floors');
  const floorList = floors === undefined ? undefined : floors === 'none' ? [] : floors.split(',');
  const unknown = floorList?.find((floor) => !(FLOOR_MODES as readonly string[]).includes(floor));
  if (unknown !== undefined) throw new Error(`--floors takes none or some of ${FLOOR_MODES.join(',')}, not ${unknown}.`);
  const steadyCalls = flag(args, '--steady-calls');
  await runTunnelBench({
    isQuick: args.includes('--quick'),
    write: !args.includes('--no-write'),
    ...(rounds ? { rounds: Number(rounds) } : {}),
    ...(rssCalls ? { rssCalls: Number(rssCalls) } : {}),
    ...(only ? { only } : {}),
    ...(floorList ? { floors: floorList as FloorMode[] } : {}),
    ...(steadyCalls ? { steadyCalls: Number(steadyCalls) } : {}),
    ...(host && domain ? { external: { url: host, domain } } : {}),
    log: (line) => console.log(line),
  });
}

const FLAGS: BenchFlags = {
  usage:
    'node dist/bench/tunnel.js [--quick] [--no-write] [--rounds N] [--rss-calls N] [--only kept|churn] [--floors answer,relay,record,proxy,forward,pipe|none] [--steady-calls N] [--tunnel-host http://127.0.0.1:<port> --tunnel-domain <domain>]',
  switches: ['--quick', '--no-write'],
  values: ['--rounds', '--rss-calls', '--only', '--floors', '--steady-calls', '--tunnel-host', '--tunnel-domain'],
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);
  main().catch((error: unknown) => {
    console.error('median-dev bench:tunnel failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
