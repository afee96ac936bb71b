/**
 * Scenario 7's profile: median-dev's tunnel client (tunnel + recording proxy
 * + recorder, one process) under `node --cpu-prof` while signed calls go
 * through the loopback tunnel server, as in the throughput rounds. Says where
 * that process's CPU goes, by area and by function, per request.
 */
import { mkdir } from 'node:fs/promises';
import { newestProfileIn, summarizeCpuProfile, type ProfileSummary } from '../cpu-profile-summary.js';
import { runLoad } from '../load-generator.js';
import { forkServer, type ServerHandle } from '../server-handle.js';
import { BENCH_MEDIAN_KEY, benchSecret, newRunTag, prepareSignedCalls } from '../signed-calls.js';

export interface TunnelProfile {
  requests: number;
  requestsPerSecond: number;
  summary: ProfileSummary;
}

export async function profileMedianTunnel(options: { target: ServerHandle; dataDir: string; profileDir: string; requests: number; warmup: number; concurrency: number }): Promise<TunnelProfile> {
  await mkdir(options.profileDir, { recursive: true });
  const tunnelServer = await forkServer({ role: 'tunnel-server' });
  let requestsPerSecond = 0;
  try {
    const client = await forkServer(
      { role: 'median-tunnel', tunnelHost: tunnelServer.url, target: options.target.url, dataDir: options.dataDir, medianKey: BENCH_MEDIAN_KEY, subdomain: 'bench-profile', handOff: true },
      { execArgv: ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] },
    );
    try {
      const host = new URL(client.url).host;
      const calls = prepareSignedCalls(benchSecret(), newRunTag(), options.warmup + options.requests);
      const result = await runLoad({
        origin: tunnelServer.url,
        requests: options.requests,
        warmup: options.warmup,
        concurrency: options.concurrency,
        requestAt: (i) => ({ ...calls[i]!, headers: { ...calls[i]!.headers, host } }),
        deadlineMs: 180_000,
      });
      if (result.failed > 0) throw new Error(`profiled tunnel: ${result.failed} of ${result.requests} requests failed (${result.firstError}).`);
      requestsPerSecond = result.requestsPerSecond;
      await client.settle();
    } finally {
      await client.stop(); // the profile is written when the process exits
    }
  } finally {
    await tunnelServer.stop();
  }
  const file = await newestProfileIn(options.profileDir);
  if (!file) throw new Error(`node --cpu-prof wrote no profile in ${options.profileDir}.`);
  return { requests: options.warmup + options.requests, requestsPerSecond, summary: await summarizeCpuProfile(file, 20) };
}

/** Markdown: where the tunnel client's CPU goes, per request. */
export function formatTunnelProfile(profile: TunnelProfile): string {
  const { summary } = profile;
  const perReq = (ms: number) => ((ms * 1000) / profile.requests).toFixed(1);
  const lines = [
    `Profiled (\`node --cpu-prof\`) median-dev's tunnel client process for ${profile.requests} requests at ${profile.requestsPerSecond.toFixed(0)} req/s: ` +
      `busy ${perReq(summary.busyMs)} µs of CPU per request (${summary.busyMs.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms sampled). The profile: ${summary.file}.`,
    '',
    '| area (self time) | µs/req | share of busy |',
    '| --- | ---: | ---: |',
    ...summary.areas.slice(0, 10).map((a) => `| ${a.name} | ${perReq(a.ms)} | ${a.percent.toFixed(1)} % |`),
    '',
    '| function (self time) | µs/req | share of busy |',
    '| --- | ---: | ---: |',
    ...summary.functions.slice(0, 20).map((f) => `| \`${f.name}\` | ${perReq(f.ms)} | ${f.percent.toFixed(1)} % |`),
    '',
    "median-dev's own functions, inclusive (what runs under each):",
    '',
    '| function | µs/req | share of busy |',
    '| --- | ---: | ---: |',
    ...summary.ownInclusive.slice(0, 15).map((f) => `| \`${f.name}\` | ${perReq(f.ms)} | ${f.percent.toFixed(1)} % |`),
  ];
  return lines.join('\n');
}
