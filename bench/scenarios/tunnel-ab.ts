/**
 * Through the tunnel, A/B: the stock `localtunnel` client and the real
 * median-dev daemon (default configuration, tunnel-world.ts) on the same
 * tunnel server and dev server, in interleaved rounds (the order swapped each
 * round), each round giving its own ratio:
 *   - closed loop: `requests` signed calls at `concurrency` in flight, req/s;
 *   - steady: `steadyCalls` at `rate` calls/s (open loop), CPU per call of the
 *     tunnel client's process (the daemon: tunnel + proxy + recorder +
 *     inspector + control; not its dev server) and the latency added.
 * The stock client's tunnel connects per request tell how much socket churn
 * the tunnel server makes.
 */
import { loadavg } from 'node:os';
import { runLoad } from '../load-generator.js';
import { median, summarizeLatencies } from '../percentiles.js';
import { readProcessMemory } from '../process-memory.js';
import { SIGNATURE_HEADER, signBody, type ToolCall } from '../../src/median/index.js';
import type { PreparedRequest } from '../signed-calls.js';
import { newRunTag } from '../signed-calls.js';
import { cpuSecondsOf } from '../soak/process-stats.js';
import { runSteadyRate } from '../steady-rate.js';
import type { FloorMode } from '../floor-tunnel.js';
import type { ServerHandle } from '../server-handle.js';
import { startTunnelWorld, type TunnelServerKind, type TunnelWorld } from './tunnel-world.js';

import { FLOORS, SIDES, type Side } from './tunnel-ab-sides.js';

export { FLOORS, SIDES, type Side } from './tunnel-ab-sides.js';

export interface ClosedRun {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuUsPerCall: number;
  /** The stock client's tunnel connects per request (null for the daemon). */
  connectsPerRequest: number | null;
  load: number;
}

export interface SteadyRun {
  cpuUsPerCall: number;
  p50: number;
  p99: number;
  late: number;
  load: number;
}

export interface TunnelAbResult extends Pick<TunnelAbOptions, 'label' | 'rounds' | 'requests' | 'warmup' | 'concurrency' | 'rate' | 'steadyCalls'> {
  closed: Record<Side, ClosedRun[]>;
  steady: Record<Side, SteadyRun[]>;
  /** Per round: daemon ÷ stock req/s; daemon ÷ stock CPU per call at the steady rate; daemon − stock p99 there (ms). */
  throughputRatios: number[];
  /** Per round, the floors the same way: each ÷ stock req/s, CPU per call at the steady rate ÷ stock's, and p99 there − stock's (ms). */
  floorRatios: Record<FloorMode, { throughput: number[]; cpu: number[]; p99Added: number[] }>;
  cpuRatios: number[];
  p99Added: number[];
  /** Runs in which some calls failed (at most 1 % of a run, else the bench stops). */
  failures: { run: string; failed: number; of: number; firstError: string }[];
  /** The daemon's RSS once synced (before any call) and its peak (VmHWM) then, MiB. */
  daemonStartRss: { rssMiB: number; peakMiB: number | undefined };
  /** The daemon's and the stock client's RSS after each round and, with `rssCalls`, after so many calls each (closed loop after the rounds). */
  rssAlong: { calls: number; daemon: { rssMiB: number; peakMiB: number | undefined }; stock: { rssMiB: number; peakMiB: number | undefined } }[];
}

export interface TunnelAbOptions {
  server: TunnelServerKind;
  label: string;
  rounds: number;
  requests: number;
  warmup: number;
  concurrency: number;
  rate: number;
  steadyCalls: number;
  /** The floors measured in each round (default all of FLOORS; [] for stock and daemon alone). */
  floors?: readonly FloorMode[];
  /** After the rounds, calls go on (closed loop, both clients alike) until each took this many, RSS read at 10,000 and every 25,000. */
  rssCalls?: number;
  log(line: string): void;
}

/** A call the example route answers (`orderStatus`), signed now for `host`. */
function preparedCall(world: TunnelWorld, host: string, tag: string, index: number, now: number): PreparedRequest {
  const call: ToolCall = {
    tool: 'orderStatus',
    toolCallId: `call_${tag}${index.toString(16).padStart(20, '0')}`,
    input: { orderNumber: `A-${10_000 + (index % 90_000)}` },
    context: { conversationId: `conv_${tag}${(index % 1_000).toString().padStart(4, '0')}`, risk: 'low', visitor: { verified: false } },
  };
  const body = Buffer.from(JSON.stringify(call), 'utf8');
  return {
    method: 'POST',
    path: world.routePath,
    headers: {
      host,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'Median/1.0 (median-dev bench)',
      [SIGNATURE_HEADER]: signBody(world.secret, body, now),
    },
    body,
  };
}

function floorOf(world: TunnelWorld, floor: FloorMode): { host: string; handle: ServerHandle } {
  const started = world.floors[floor];
  if (!started) throw new Error(`The ${floor} floor was not started in this world.`);
  return started;
}

/** `count` signed calls for the tunnel at `host`, each with a toolCallId of its own (a fresh run tag). */
export function callsFor(world: TunnelWorld, host: string, count: number): PreparedRequest[] {
  const tag = newRunTag();
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => preparedCall(world, host, tag, i, now));
}

function prepare(world: TunnelWorld, side: Side, count: number): PreparedRequest[] {
  return callsFor(world, side === 'stock' ? world.stockHost : side === 'daemon' ? world.daemonHost : floorOf(world, side).host, count);
}

/**
 * A few unmeasured calls through the side before it is measured. A tunnel
 * client idle while the others ran may hold tunnel sockets whose connection
 * to the dev server the dev server just closed (its 5 s keep-alive timeout):
 * the stock client then answers a call on such a socket with nothing, and the
 * tunnel server gives 502. Those calls' outcomes are not counted.
 */
async function freshen(world: TunnelWorld, side: Side): Promise<void> {
  const calls = prepare(world, side, 64);
  await runLoad({ origin: world.tunnelServerUrl, requests: calls.length, warmup: 0, concurrency: 16, recordLatencies: false, requestAt: (i) => calls[i]!, deadlineMs: 60_000 });
}

/** CPU µs so far of the side's process: the stock client's own count, the daemon's from /proc. */
async function cpuUsOf(world: TunnelWorld, side: Side): Promise<{ cpuUs: number; connects: number | null }> {
  if (side === 'daemon') return { cpuUs: (await cpuSecondsOf(world.daemon.pid)) * 1e6, connects: null };
  const settled = await (side === 'stock' ? world.stock : floorOf(world, side).handle).settle();
  return { cpuUs: settled.cpuUs, connects: settled.connects ?? null };
}

export async function runTunnelAb(options: TunnelAbOptions): Promise<TunnelAbResult> {
  const floors = options.floors ?? FLOORS;
  const world = await startTunnelWorld({ server: options.server, tag: newRunTag(), startTimeoutMs: 60_000, floors });
  try {
    const daemonStartRss = await readProcessMemory(world.daemon.pid);
    const closed: Record<Side, ClosedRun[]> = { stock: [], daemon: [], answer: [], relay: [], record: [], proxy: [], forward: [], pipe: [] };
    const rssAlong: TunnelAbResult['rssAlong'] = [];
    const readRss = async (calls: number): Promise<void> => {
      const [daemon, stock] = await Promise.all([readProcessMemory(world.daemon.pid), readProcessMemory(world.stock.pid)]);
      rssAlong.push({ calls, daemon: { rssMiB: daemon.rssMiB, peakMiB: daemon.peakMiB }, stock: { rssMiB: stock.rssMiB, peakMiB: stock.peakMiB } });
      options.log(`  ${options.label} after ${calls} calls each: daemon RSS ${daemon.rssMiB.toFixed(1)} MiB (peak ${daemon.peakMiB?.toFixed(1)}), stock ${stock.rssMiB.toFixed(1)} MiB  load ${loadavg()[0]!.toFixed(2)}`);
    };
    const failures: TunnelAbResult['failures'] = [];
    /**
     * A few failed calls under load (the tunnel server's 503 when it has no free
     * tunnel socket for a moment, seen on either client) are reported with the
     * results; more than 1 % of a run means something is broken, and stops the bench.
     */
    const noteFailures = (run: string, failed: number, of: number, firstError: string | undefined): void => {
      if (failed === 0) return;
      if (failed > of / 100) throw new Error(`${options.label}, ${run}: ${failed} of ${of} calls failed (${firstError}).`);
      failures.push({ run, failed, of, firstError: firstError ?? '' });
      options.log(`  ${options.label} ${run}: ${failed} of ${of} calls failed (${firstError}); reported, not counted as answered`);
    };
    /**
     * Runs a measurement again, once, with a new stock client when calls
     * through the old one failed: after sitting idle while the others ran, the
     * localtunnel 2.0.2 client was seen forgotten by the tunnel server (every
     * call 404; it never registers again) or with every tunnel socket dead
     * (every call 408).
     */
    const againIfForgotten = async <R extends { result: { failed: number; firstError: string | undefined } }>(side: Side, run: () => Promise<R>): Promise<R> => {
      const first = await run();
      if (side !== 'stock' || first.result.failed === 0) return first;
      options.log(`  ${options.label}: the stock client's tunnel failed ${first.result.failed} calls (${first.result.firstError}); a new one, same subdomain, and the run again`);
      await world.restartStock();
      await freshen(world, side);
      return run();
    };
    const steady: Record<Side, SteadyRun[]> = { stock: [], daemon: [], answer: [], relay: [], record: [], proxy: [], forward: [], pipe: [] };
    for (let round = 0; round < options.rounds; round += 1) {
      // Stock and daemon side by side, swapped each round; the floors after them, swapped too.
      const order: Side[] = round % 2 === 0 ? ['stock', 'daemon', ...floors] : ['daemon', 'stock', ...[...floors].reverse()];
      for (const side of order) {
        const total = options.warmup + options.requests;
        const { result, before, load } = await againIfForgotten(side, async () => {
          await freshen(world, side);
          const calls = prepare(world, side, total);
          const load = loadavg()[0]!;
          const before = await cpuUsOf(world, side);
          const result = await runLoad({
            origin: world.tunnelServerUrl,
            requests: options.requests,
            warmup: options.warmup,
            concurrency: options.concurrency,
            requestAt: (i) => calls[i]!,
            deadlineMs: 240_000,
          });
          return { result, before, load };
        });
        noteFailures(`${side}, round ${round + 1}, closed loop`, result.failed, total, result.firstError);
        const after = await cpuUsOf(world, side);
        const latency = summarizeLatencies(result.latenciesMs);
        const run: ClosedRun = {
          requestsPerSecond: result.requestsPerSecond,
          p50: latency.p50,
          p99: latency.p99,
          cpuUsPerCall: (after.cpuUs - before.cpuUs) / total,
          connectsPerRequest: after.connects === null || before.connects === null ? null : (after.connects - before.connects) / total,
          load,
        };
        closed[side].push(run);
        options.log(
          `  ${options.label} round ${round + 1} closed  ${side.padEnd(6)} ${run.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${run.p50.toFixed(2)}  p99 ${run.p99.toFixed(2)} ms` +
            `  CPU ${run.cpuUsPerCall.toFixed(0)} µs/call${run.connectsPerRequest === null ? '' : `  connects/req ${run.connectsPerRequest.toFixed(2)}`}  load ${load.toFixed(2)}`,
        );
      }
      for (const side of order) {
        const { result, before, load } = await againIfForgotten(side, async () => {
          await freshen(world, side);
          const calls = prepare(world, side, options.steadyCalls);
          const load = loadavg()[0]!;
          const before = await cpuUsOf(world, side);
          const result = await runSteadyRate({ origin: world.tunnelServerUrl, rate: options.rate, count: options.steadyCalls, maxInFlight: 32, requestAt: (i) => calls[i]! });
          return { result, before, load };
        });
        noteFailures(`${side}, round ${round + 1}, at ${options.rate}/s`, result.failed, options.steadyCalls, result.firstError);
        const after = await cpuUsOf(world, side);
        const latency = summarizeLatencies(result.latenciesMs);
        const run: SteadyRun = { cpuUsPerCall: (after.cpuUs - before.cpuUs) / options.steadyCalls, p50: latency.p50, p99: latency.p99, late: result.late, load };
        steady[side].push(run);
        options.log(
          `  ${options.label} round ${round + 1} ${options.rate}/s  ${side.padEnd(6)} CPU ${run.cpuUsPerCall.toFixed(0)} µs/call  p50 ${run.p50.toFixed(2)}  p99 ${run.p99.toFixed(2)} ms  late ${run.late}  load ${load.toFixed(2)}`,
        );
      }
      await readRss((round + 1) * (options.warmup + options.requests + options.steadyCalls));
    }
    if (options.rssCalls) {
      let taken = options.rounds * (options.warmup + options.requests + options.steadyCalls);
      const checkpoints = [10_000, ...Array.from({ length: Math.floor(options.rssCalls / 25_000) }, (_, i) => (i + 1) * 25_000)].filter((n) => n > taken && n <= options.rssCalls!);
      for (const checkpoint of checkpoints) {
        for (const side of ['stock', 'daemon'] as const) {
          const { result, calls } = await againIfForgotten(side, async () => {
            await freshen(world, side);
            const calls = prepare(world, side, checkpoint - taken);
            const result = await runLoad({ origin: world.tunnelServerUrl, requests: calls.length, warmup: 0, concurrency: options.concurrency, recordLatencies: false, requestAt: (i) => calls[i]!, deadlineMs: 900_000 });
            return { result, calls };
          });
          noteFailures(`${side}, on the way to ${checkpoint} calls`, result.failed, calls.length, result.firstError);
        }
        taken = checkpoint;
        await readRss(checkpoint);
      }
    }
    const byRound = <T>(runs: Record<Side, T[]>, f: (daemon: T, stock: T, round: number) => number): number[] => runs.daemon.map((d, i) => f(d, runs.stock[i]!, i));
    return {
      label: options.label,
      rounds: options.rounds,
      requests: options.requests,
      warmup: options.warmup,
      concurrency: options.concurrency,
      rate: options.rate,
      steadyCalls: options.steadyCalls,
      closed,
      steady,
      throughputRatios: byRound(closed, (d, s) => d.requestsPerSecond / s.requestsPerSecond),
      floorRatios: Object.fromEntries(
        FLOORS.map((floor) => [
          floor,
          floors.includes(floor)
            ? {
                throughput: byRound(closed, (_d, s, i) => closed[floor][i]!.requestsPerSecond / s.requestsPerSecond),
                cpu: byRound(steady, (_d, s, i) => steady[floor][i]!.cpuUsPerCall / s.cpuUsPerCall),
                p99Added: byRound(steady, (_d, s, i) => steady[floor][i]!.p99 - s.p99),
              }
            : { throughput: [], cpu: [], p99Added: [] },
        ]),
      ) as TunnelAbResult['floorRatios'],
      cpuRatios: byRound(steady, (d, s) => d.cpuUsPerCall / s.cpuUsPerCall),
      p99Added: byRound(steady, (d, s) => d.p99 - s.p99),
      daemonStartRss: { rssMiB: daemonStartRss.rssMiB, peakMiB: daemonStartRss.peakMiB },
      failures,
      rssAlong,
    };
  } finally {
    await world.close();
  }
}

export const medianOf = (values: readonly number[]): number => median(values);
