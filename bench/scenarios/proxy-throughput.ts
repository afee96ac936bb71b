/**
 * Scenario 1: the same signed tool calls sent (a) straight to the target,
 * (b) through a bare http-proxy-3, (c) through median-dev's recording proxy
 * with a real recorder, and, as a diagnostic, (d) through the recording proxy
 * with its records built and counted but not stored, which splits its cost
 * between proxy and recorder, and (e) with each record's JSON line written
 * raw, one write per turn (raw-record-writer.ts): the floor of storing it.
 * Rounds are interleaved (order rotated each round) so drift on the shared
 * machine hits every scenario alike; per scenario the median run (by
 * throughput) is reported. Each process's CPU time per
 * request is measured too: on two shared cores, CPU is what bounds throughput.
 */
import { performance } from 'node:perf_hooks';
import { runLoad } from '../load-generator.js';
import { median, medianBy, summarizeLatencies } from '../percentiles.js';
import { forkServer, type ServerHandle } from '../server-handle.js';
import type { RecordingStats } from '../server-process.js';
import { BENCH_MEDIAN_KEY, benchSecret, newRunTag, prepareSignedCalls } from '../signed-calls.js';

export type ProxyScenarioName = 'direct' | 'bare' | 'recording' | 'dropped' | 'written';
export const PROXY_SCENARIOS: readonly ProxyScenarioName[] = ['direct', 'bare', 'recording', 'dropped', 'written'];

export const PROXY_SCENARIO_LABELS: Record<ProxyScenarioName, string> = {
  direct: 'target directly',
  bare: 'bare http-proxy-3',
  recording: 'median-dev recording proxy',
  dropped: 'recording proxy, records not stored',
  written: 'recording proxy, records written raw',
};

export interface CpuPerRequest {
  /** µs of CPU (user + system, all threads) per request, warm-up included. */
  client: number;
  target: number;
  /** 0 for `direct`. */
  proxy: number;
}

export interface RunSummary {
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  durationMs: number;
  cpu: CpuPerRequest;
}

export interface ProxyScenarioResult {
  name: ProxyScenarioName;
  label: string;
  runs: RunSummary[];
  /** The median run by throughput. */
  median: RunSummary;
  /** Each process's CPU per request, the median over the runs (field by field). */
  cpu: CpuPerRequest;
}

export interface ProxyThroughputResult {
  requests: number;
  warmup: number;
  concurrency: number;
  rounds: number;
  scenarios: Record<ProxyScenarioName, ProxyScenarioResult>;
  /** recording ÷ bare, median runs. */
  throughputRatio: number;
  /** recording − bare p50, ms. */
  p50AddedMs: number;
  p99AddedMs: number;
  recording: RecordingStats | null;
  /** Longest wait, after a recording run's last answer, for its records to be on disk. */
  maxSettleMs: number;
}

export interface ProxyThroughputOptions {
  target: ServerHandle;
  dataDir: string;
  requests: number;
  warmup: number;
  rounds: number;
  concurrency: number;
  log(line: string): void;
}

/** The median over the rounds of `a`'s throughput ÷ `b`'s in the same round. */
export function medianRatio(p: Pick<ProxyThroughputResult, 'scenarios'>, a: ProxyScenarioName, b: ProxyScenarioName): number {
  return median(p.scenarios[a].runs.map((run, i) => run.requestsPerSecond / p.scenarios[b].runs[i]!.requestsPerSecond));
}

function clientCpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export async function runProxyThroughput(options: ProxyThroughputOptions): Promise<ProxyThroughputResult> {
  const secret = benchSecret();
  const bare = await forkServer({ role: 'bare-proxy', target: options.target.url });
  let recording: ServerHandle | undefined;
  let dropped: ServerHandle | undefined;
  let written: ServerHandle | undefined;
  try {
    const recordingProxy = (records: 'store' | 'drop' | 'raw', dataDir: string): Promise<ServerHandle> =>
      forkServer({ role: 'recording-proxy', target: options.target.url, dataDir, medianKey: BENCH_MEDIAN_KEY, records });
    recording = await recordingProxy('store', options.dataDir);
    dropped = await recordingProxy('drop', `${options.dataDir}-dropped`);
    written = await recordingProxy('raw', `${options.dataDir}-written`);
    const proxies: Record<ProxyScenarioName, ServerHandle | undefined> = { direct: undefined, bare, recording, dropped, written };
    const runs: Record<ProxyScenarioName, RunSummary[]> = { direct: [], bare: [], recording: [], dropped: [], written: [] };
    let maxSettleMs = 0;
    // A first round of every scenario, not measured: the first runs of a fresh proxy process were its slowest
    // (V8 still optimising its paths, the recorder's first segment): 0.56-0.81 of bare in every run of
    // 2026-12-02 against a median of 0.81-1.06 over the rest.
    for (const name of PROXY_SCENARIOS) {
      const calls = prepareSignedCalls(secret, newRunTag(), options.warmup + options.requests);
      const result = await runLoad({
        origin: proxies[name]?.url ?? options.target.url,
        requests: options.requests,
        warmup: options.warmup,
        concurrency: options.concurrency,
        requestAt: (i) => calls[i]!,
        deadlineMs: 120_000,
        recordLatencies: false,
      });
      if (result.failed > 0) throw new Error(`${PROXY_SCENARIO_LABELS[name]} (warm-up round): ${result.failed} of ${result.requests} requests failed (${result.firstError}).`);
    }
    for (let round = 0; round < options.rounds; round += 1) {
      for (let k = 0; k < PROXY_SCENARIOS.length; k += 1) {
        const name = PROXY_SCENARIOS[(k + round) % PROXY_SCENARIOS.length]!;
        const proxy = proxies[name];
        const total = options.warmup + options.requests;
        const calls = prepareSignedCalls(secret, newRunTag(), total);
        const before = { client: clientCpuUs(), target: (await options.target.settle()).cpuUs, proxy: proxy ? (await proxy.settle()).cpuUs : 0 };
        const result = await runLoad({
          origin: proxy?.url ?? options.target.url,
          requests: options.requests,
          warmup: options.warmup,
          concurrency: options.concurrency,
          requestAt: (i) => calls[i]!,
          deadlineMs: 120_000,
        });
        const clientAfter = clientCpuUs();
        if (result.failed > 0) throw new Error(`${PROXY_SCENARIO_LABELS[name]}: ${result.failed} of ${result.requests} requests failed (${result.firstError}).`);
        const t0 = performance.now();
        const proxyAfter = proxy ? (await proxy.settle()).cpuUs : 0;
        const settleMs = performance.now() - t0;
        const targetAfter = (await options.target.settle()).cpuUs;
        if (name === 'recording') maxSettleMs = Math.max(maxSettleMs, settleMs);
        const cpu: CpuPerRequest = {
          client: (clientAfter - before.client) / total,
          target: (targetAfter - before.target) / total,
          proxy: (proxyAfter - before.proxy) / total,
        };
        const latency = summarizeLatencies(result.latenciesMs);
        runs[name].push({ requestsPerSecond: result.requestsPerSecond, ...latency, durationMs: result.durationMs, cpu });
        options.log(
          `  round ${round + 1}  ${PROXY_SCENARIO_LABELS[name].padEnd(36)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s` +
            `  p50 ${latency.p50.toFixed(3)} ms  p99 ${latency.p99.toFixed(3)} ms` +
            `  CPU µs/req: client ${cpu.client.toFixed(0)}, target ${cpu.target.toFixed(0)}, proxy ${cpu.proxy.toFixed(0)}`,
        );
      }
    }
    const { stats } = await recording.settle();
    const scenarios = Object.fromEntries(
      PROXY_SCENARIOS.map((name) => [
        name,
        {
          name,
          label: PROXY_SCENARIO_LABELS[name],
          runs: runs[name],
          median: medianBy(runs[name], (r) => r.requestsPerSecond),
          cpu: {
            client: median(runs[name].map((r) => r.cpu.client)),
            target: median(runs[name].map((r) => r.cpu.target)),
            proxy: median(runs[name].map((r) => r.cpu.proxy)),
          },
        },
      ]),
    ) as Record<ProxyScenarioName, ProxyScenarioResult>;
    return {
      requests: options.requests,
      warmup: options.warmup,
      concurrency: options.concurrency,
      rounds: options.rounds,
      scenarios,
      throughputRatio: scenarios.recording.median.requestsPerSecond / scenarios.bare.median.requestsPerSecond,
      p50AddedMs: scenarios.recording.median.p50 - scenarios.bare.median.p50,
      p99AddedMs: scenarios.recording.median.p99 - scenarios.bare.median.p99,
      recording: stats,
      maxSettleMs,
    };
  } finally {
    await written?.stop();
    await dropped?.stop();
    await recording?.stop();
    await bare.stop();
  }
}
