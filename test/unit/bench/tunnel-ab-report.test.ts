import { describe, expect, it } from 'vitest';
import type { FloorMode } from '../../../bench/floor-tunnel.js';
import { formatTunnelAb } from '../../../bench/scenarios/tunnel-ab-report.js';
import type { ClosedRun, SteadyRun, TunnelAbResult } from '../../../bench/scenarios/tunnel-ab.js';
import { FLOORS, SIDES, type Side } from '../../../bench/scenarios/tunnel-ab-sides.js';

const closed = (requestsPerSecond: number): ClosedRun => ({ requestsPerSecond, p50: 2, p99: 10, cpuUsPerCall: 100, connectsPerRequest: null, load: 1 });
const steady = (cpuUsPerCall: number, p99: number): SteadyRun => ({ cpuUsPerCall, p50: 1, p99, late: 0, load: 1 });

/** Three rounds: the stock client at 1,000 req/s, 300 µs a call and a p99 of 5 ms; each side given as its own figures. */
function resultWith(sides: Partial<Record<Side, { rps: number; cpu: number; p99: number }>>): TunnelAbResult {
  const stock = { rps: 1000, cpu: 300, p99: 5 };
  const all = { stock, ...sides } as Record<Side, { rps: number; cpu: number; p99: number } | undefined>;
  const runs = <T>(make: (f: { rps: number; cpu: number; p99: number }) => T): Record<Side, T[]> =>
    Object.fromEntries(SIDES.map((side) => [side, all[side] ? [make(all[side]), make(all[side]), make(all[side])] : []])) as Record<Side, T[]>;
  const daemon = all.daemon!;
  const ratios = (f: { rps: number; cpu: number; p99: number }) => ({
    throughput: [1, 2, 3].map(() => f.rps / stock.rps),
    cpu: [1, 2, 3].map(() => f.cpu / stock.cpu),
    p99Added: [1, 2, 3].map(() => f.p99 - stock.p99),
  });
  return {
    label: 'loopback server, sockets kept',
    rounds: 3,
    requests: 5000,
    warmup: 1000,
    concurrency: 16,
    rate: 250,
    steadyCalls: 5000,
    closed: runs((f) => closed(f.rps)),
    steady: runs((f) => steady(f.cpu, f.p99)),
    throughputRatios: ratios(daemon).throughput,
    cpuRatios: ratios(daemon).cpu,
    p99Added: ratios(daemon).p99Added,
    floorRatios: Object.fromEntries(
      FLOORS.map((floor: FloorMode) => [floor, all[floor] ? ratios(all[floor]) : { throughput: [], cpu: [], p99Added: [] }]),
    ) as TunnelAbResult['floorRatios'],
    failures: [],
    daemonStartRss: { rssMiB: 66, peakMiB: 66 },
    rssAlong: [],
  };
}

/** The goal table's row that starts with `what`, split into its cells. */
function goalRow(text: string, what: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`| ${what}`));
  if (!line) throw new Error(`no row for ${what}`);
  return line.split(' | ').map((cell) => cell.replace(/^\| |\s\|$/g, ''));
}

describe('the tunnel bench report', () => {
  it("gives each goal the floors' medians from the same rounds, and says when no recording floor meets a missed goal", () => {
    const text = formatTunnelAb(
      [
        resultWith({
          daemon: { rps: 800, cpu: 750, p99: 7.5 },
          relay: { rps: 1050, cpu: 420, p99: 5.9 },
          record: { rps: 900, cpu: 630, p99: 6.6 },
          proxy: { rps: 850, cpu: 720, p99: 7.1 },
        }),
      ],
      'test machine',
    );
    const throughput = goalRow(text, 'req/s');
    expect(throughput[3]).toBe('0.80');
    expect(throughput[4]).toBe('relay 1.05, record 0.90, proxy 0.85');
    expect(throughput[5]).toBe('**missed**; no recording floor meets it in these rounds either');
    const p99 = goalRow(text, 'p99 added');
    expect(p99[4]).toBe('relay +0.90, record +1.60, proxy +2.10');
    expect(p99[5]).toBe('**missed**; no recording floor meets it in these rounds either');
    // The floors' own table has the p99 each adds, round by round.
    expect(text).toContain('| record | 0.90, 0.90, 0.90 (median 0.90) | 2.10, 2.10, 2.10 (median 2.10) | 1.60, 1.60, 1.60 (median +1.60) |');
  });

  it('names the recording floor that meets a goal the daemon misses', () => {
    const text = formatTunnelAb(
      [resultWith({ daemon: { rps: 800, cpu: 750, p99: 5.5 }, record: { rps: 900, cpu: 570, p99: 5.2 }, proxy: { rps: 850, cpu: 720, p99: 5.4 } })],
      'test machine',
    );
    const cpu = goalRow(text, 'daemon CPU');
    expect(cpu[4]).toBe('record 1.90, proxy 2.40');
    expect(cpu[5]).toBe('**missed**; met by the `record` floor');
    expect(goalRow(text, 'p99 added')[5]).toBe('met');
  });

  it('keeps a plain verdict when no floor ran', () => {
    const text = formatTunnelAb([resultWith({ daemon: { rps: 1200, cpu: 750, p99: 5.5 } })], 'test machine');
    expect(goalRow(text, 'req/s')[5]).toBe('met');
    expect(goalRow(text, 'req/s')[4]).toBe('—');
    expect(goalRow(text, 'daemon CPU')[5]).toBe('**missed**');
    expect(text).not.toContain('| floor ÷ stock client');
  });
});
