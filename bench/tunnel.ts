/**
 * `npm run bench:tunnel`: scenario 7 alone (through the tunnel, the stock
 * localtunnel client vs median-dev), also run as the last part of `npm run bench`.
 *
 *   node dist/bench/tunnel.js [--quick] [--no-write] [--profile | --no-profile]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { formatTunnelProfile, profileMedianTunnel } from './scenarios/tunnel-profile.js';
import { formatTunnelReport, isTunnelGoalMet, runTunnelThroughput } from './scenarios/tunnel-throughput.js';
import { forkServer, type ServerHandle } from './server-handle.js';

export const TUNNEL_SECTION_HEADING = '## Through the tunnel: stock localtunnel client vs median-dev';
const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));

/**
 * --profile: always profile median-dev's tunnel client; --no-profile: never;
 * default: when the goal is missed, so BENCHMARKS.md says where the time goes.
 */
export async function runTunnelBench(options: { target: ServerHandle; root: string; isQuick: boolean; write: boolean; profile?: boolean; log(line: string): void }): Promise<void> {
  const machine = describeMachine();
  const requests = options.isQuick ? 2_000 : 20_000;
  const rounds = options.isQuick ? 1 : 3;
  options.log(`\n7. Through the tunnel: ${rounds} interleaved rounds × (1000 warm-up + ${requests}) signed calls, concurrency 16`);
  const result = await runTunnelThroughput({ target: options.target, dataDir: join(options.root, 'tunnel-data'), requests, warmup: 1_000, rounds, concurrency: 16, log: options.log });
  let report = formatTunnelReport(result, `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}`);
  if (options.profile ?? !isTunnelGoalMet(result)) {
    // Kept after the run (outside the temporary folder) for a closer look in devtools.
    const profileDir = await mkdtemp(join(tmpdir(), 'median-dev-bench-tunnel-profile-'));
    options.log(`\n   Profiling median-dev's tunnel client (${profileDir})`);
    const profile = await profileMedianTunnel({ target: options.target, dataDir: join(options.root, 'tunnel-profile-data'), profileDir, requests, warmup: 1_000, concurrency: 16 });
    report += `\n\n### Where the time goes\n\n${formatTunnelProfile(profile)}`;
  }
  options.log(`\n${TUNNEL_SECTION_HEADING}\n\n${report}\n`);
  if (options.write && !options.isQuick) {
    await writeSection(BENCHMARKS_FILE, TUNNEL_SECTION_HEADING, report);
    options.log(`Written to ${BENCHMARKS_FILE} (section "${TUNNEL_SECTION_HEADING.slice(3)}").`);
  }
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-tunnel-'));
  const target = await forkServer({ role: 'target' });
  try {
    const profile = args.has('--profile') ? true : args.has('--no-profile') ? false : undefined;
    await runTunnelBench({ target, root, isQuick: args.has('--quick'), write: !args.has('--no-write'), ...(profile === undefined ? {} : { profile }), log: (line) => console.log(line) });
  } finally {
    await target.stop();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error('median-dev bench:tunnel failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
