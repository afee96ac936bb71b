/**
 * Scenario 7 (issue 10): signed tool calls through the loopback localtunnel
 * server, keep-alive, the same concurrency as scenario 1, each to the same
 * target app, via (a) the stock `localtunnel` npm client tunnelling straight
 * to the app, (b) median-dev's tunnel with its sockets handed to the
 * recording proxy (records stored), (c) as (b) but each tunnel socket piped
 * into a second loopback connection to the proxy (the way before issue 10).
 * Every party is its own process (the tunnel server too). Rounds are
 * interleaved with the order rotated, so the drift of a shared machine hits
 * each alike; the load average is taken at every run.
 */
import { loadavg } from 'node:os';
import { runLoad } from '../load-generator.js';
import { median, medianBy, summarizeLatencies } from '../percentiles.js';
import { forkServer, type ServerHandle } from '../server-handle.js';
import type { ProxyThroughputOptions } from './proxy-throughput.js';
import { BENCH_MEDIAN_KEY, benchSecret, newRunTag, prepareSignedCalls } from '../signed-calls.js';

export type TunnelScenarioName = 'stock' | 'median' | 'piped';
export const TUNNEL_SCENARIOS: readonly TunnelScenarioName[] = ['stock', 'median', 'piped'];
export const TUNNEL_SCENARIO_LABELS: Record<TunnelScenarioName, string> = {
  stock: 'stock localtunnel client → app',
  median: 'median-dev tunnel → recording proxy → app',
  piped: 'same, second loopback hop (before)',
};

export interface TunnelRun {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** µs of CPU per request in the tunnel client's process (median-dev: tunnel + proxy + recorder). */
  clientCpuUs: number;
  /** 1-minute load average when the run started. */
  load: number;
}

export interface TunnelThroughputResult {
  requests: number;
  warmup: number;
  concurrency: number;
  rounds: number;
  runs: Record<TunnelScenarioName, TunnelRun[]>;
  /** Per scenario, the median run by throughput. */
  median: Record<TunnelScenarioName, TunnelRun>;
  /** median ÷ stock, req/s of the median runs. */
  ratio: number;
  /** Load average range over the runs. */
  load: { min: number; max: number };
}

/** The same load as the proxy scenario, sent through a tunnel. */
export async function runTunnelThroughput(options: ProxyThroughputOptions): Promise<TunnelThroughputResult> {
  const secret = benchSecret();
  const servers: ServerHandle[] = [];
  try {
    const tunnelServer = await forkServer({ role: 'tunnel-server' });
    servers.push(tunnelServer);
    const clients: Record<TunnelScenarioName, ServerHandle> = {
      stock: await forkServer({ role: 'stock-tunnel', tunnelHost: tunnelServer.url, target: options.target.url, subdomain: 'bench-stock' }),
      median: await forkServer({
        role: 'median-tunnel',
        tunnelHost: tunnelServer.url,
        target: options.target.url,
        dataDir: `${options.dataDir}-handoff`,
        medianKey: BENCH_MEDIAN_KEY,
        subdomain: 'bench-median',
        handOff: true,
      }),
      piped: await forkServer({
        role: 'median-tunnel',
        tunnelHost: tunnelServer.url,
        target: options.target.url,
        dataDir: `${options.dataDir}-piped`,
        medianKey: BENCH_MEDIAN_KEY,
        subdomain: 'bench-piped',
        handOff: false,
      }),
    };
    servers.push(...Object.values(clients));
    const runs: Record<TunnelScenarioName, TunnelRun[]> = { stock: [], median: [], piped: [] };
    for (let round = 0; round < options.rounds; round += 1) {
      for (let k = 0; k < TUNNEL_SCENARIOS.length; k += 1) {
        const name = TUNNEL_SCENARIOS[(k + round) % TUNNEL_SCENARIOS.length]!;
        const client = clients[name];
        const host = new URL(client.url).host;
        const total = options.warmup + options.requests;
        const calls = prepareSignedCalls(secret, newRunTag(), total);
        const load = loadavg()[0]!;
        const cpuBefore = (await client.settle()).cpuUs;
        const result = await runLoad({
          origin: tunnelServer.url,
          requests: options.requests,
          warmup: options.warmup,
          concurrency: options.concurrency,
          requestAt: (i) => {
            const call = calls[i]!;
            return { ...call, headers: { ...call.headers, host } };
          },
          deadlineMs: 180_000,
        });
        if (result.failed > 0) throw new Error(`${TUNNEL_SCENARIO_LABELS[name]}: ${result.failed} of ${result.requests} requests failed (${result.firstError}).`);
        const clientCpuUs = ((await client.settle()).cpuUs - cpuBefore) / total;
        const latency = summarizeLatencies(result.latenciesMs);
        runs[name].push({ requestsPerSecond: result.requestsPerSecond, p50: latency.p50, p99: latency.p99, clientCpuUs, load });
        options.log(
          `  round ${round + 1}  ${TUNNEL_SCENARIO_LABELS[name].padEnd(42)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s` +
            `  p50 ${latency.p50.toFixed(2)} ms  p99 ${latency.p99.toFixed(2)} ms  client CPU ${clientCpuUs.toFixed(0)} µs/req  load ${load.toFixed(2)}`,
        );
      }
    }
    const medians = Object.fromEntries(TUNNEL_SCENARIOS.map((name) => [name, medianBy(runs[name], (r) => r.requestsPerSecond)])) as Record<
      TunnelScenarioName,
      TunnelRun
    >;
    const loads = TUNNEL_SCENARIOS.flatMap((name) => runs[name].map((r) => r.load));
    return {
      requests: options.requests,
      warmup: options.warmup,
      concurrency: options.concurrency,
      rounds: options.rounds,
      runs,
      median: medians,
      ratio: medians.median.requestsPerSecond / medians.stock.requestsPerSecond,
      load: { min: Math.min(...loads), max: Math.max(...loads) },
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

/** The issue's goal: ≥ 1.1× the stock client's req/s with recording on, p99 no worse. */
export function isTunnelGoalMet(result: TunnelThroughputResult): boolean {
  return result.ratio >= 1.1 && result.median.median.p99 <= result.median.stock.p99;
}

/** The BENCHMARKS.md section body for scenario 7. */
export function formatTunnelReport(result: TunnelThroughputResult, machine: string): string {
  const row = (name: TunnelScenarioName): string => {
    const m = result.median[name];
    return `| ${TUNNEL_SCENARIO_LABELS[name]} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50.toFixed(2)} | ${m.p99.toFixed(2)} | ${m.clientCpuUs.toFixed(0)} | ${(m.requestsPerSecond / result.median.stock.requestsPerSecond).toFixed(2)}× |`;
  };
  const isMet = isTunnelGoalMet(result);
  return [
    `${machine}; load average (1 min) ${result.load.min.toFixed(2)}–${result.load.max.toFixed(2)} during the runs: the machine was shared with other work, so the numbers move between runs; the rounds are interleaved so the drift hits every client alike.`,
    '',
    `Signed tool calls through the loopback localtunnel server (its own process), keep-alive, concurrency ${result.concurrency}, ${result.rounds} interleaved rounds × (${result.warmup} warm-up + ${result.requests}); the median round by req/s.`,
    '',
    '| path | req/s | p50 ms | p99 ms | tunnel client CPU µs/req | vs stock |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('stock'),
    row('median'),
    row('piped'),
    '',
    `Goal: ≥ 1.1× the stock client's req/s with recording on, p99 no worse: ${isMet ? 'met' : 'missed'} (${result.ratio.toFixed(2)}×, p99 ${result.median.median.p99.toFixed(2)} vs ${result.median.stock.p99.toFixed(2)} ms).`,
    '',
    `Every round: ${TUNNEL_SCENARIOS.map((name) => `${name} ${result.runs[name].map((r) => r.requestsPerSecond.toFixed(0)).join('/')}`).join('; ')} req/s. Median client CPU: ${TUNNEL_SCENARIOS.map((name) => `${name} ${median(result.runs[name].map((r) => r.clientCpuUs)).toFixed(0)} µs/req`).join(', ')}.`,
  ].join('\n');
}
