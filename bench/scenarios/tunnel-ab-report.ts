/** The BENCHMARKS.md text for the tunnel A/B (tunnel-ab.ts): per tunnel server, the goals with every round's figure. */
import { median } from '../percentiles.js';
import { FLOORS, SIDES, type Side, type TunnelAbResult } from './tunnel-ab.js';

const fmt = (value: number, digits = 2): string => value.toFixed(digits);
const list = (values: readonly number[], digits = 2): string => values.map((v) => fmt(v, digits)).join(', ');

interface Goal {
  what: string;
  goal: string;
  rounds: string;
  value: string;
  isMet: boolean;
}

function goalsOf(result: TunnelAbResult): Goal[] {
  const throughput = median(result.throughputRatios);
  const cpu = median(result.cpuRatios);
  const p99 = median(result.p99Added);
  return [
    { what: 'req/s ÷ stock client (closed loop)', goal: '≥ 1.1', rounds: list(result.throughputRatios), value: fmt(throughput), isMet: throughput >= 1.1 },
    { what: `daemon CPU per call ÷ stock client's, at ${result.rate} calls/s`, goal: '≤ 2', rounds: list(result.cpuRatios), value: fmt(cpu), isMet: cpu <= 2 },
    { what: `p99 added over the stock client, at ${result.rate} calls/s (ms)`, goal: '≤ +1 ms', rounds: list(result.p99Added), value: `${p99 >= 0 ? '+' : ''}${fmt(p99)}`, isMet: p99 <= 1 },
  ];
}

export function isTunnelAbMet(result: TunnelAbResult): boolean {
  return goalsOf(result).every((goal) => goal.isMet);
}

const SIDE_LABELS: Record<Side, string> = {
  stock: 'stock `localtunnel` client → dev server',
  daemon: 'median-dev daemon (tunnel → recording proxy → dev server)',
  answer: "floor: median-dev's tunnel → Node's HTTP server answering itself (one termination, no forwarding, no recording)",
  relay: "floor: median-dev's tunnel → Node's HTTP server → the request written to a kept raw socket to the dev server, the answer's head split by hand and written back (one termination, no second client stack, no recording)",
  record: "floor: the relay above doing the daemon's recording work with its own modules (signature, classification, the record built and judged, the real recorder's append, the answer held until written); no event, no printed line, no inspector",
  proxy: "floor: median-dev's tunnel → the daemon's own recording proxy and recorder (src/proxy: the defended forwarder, its limits and checks; each record appended as the daemon appends it); no event, no printed line, no inspector, no control channel",
  forward: "floor: median-dev's tunnel → Node's HTTP server → Node's HTTP client to the dev server (two terminations, no http-proxy-3, no recording)",
  pipe: "floor: median-dev's tunnel piped to the dev server (the transport alone)",
};

/** What the floors say: the cheapest a design of that shape can be, per round, against the stock client. */
/** What the floors say: the cheapest a design of that shape can be, per round, against the stock client. */
function floorLines(result: TunnelAbResult): string[] {
  const present = FLOORS.filter((floor) => result.floorRatios[floor].cpu.length > 0);
  if (present.length === 0) return [];
  return [
    '',
    '| floor ÷ stock client, same rounds | req/s (closed loop) | CPU per call at the steady rate |',
    '| --- | --- | --- |',
    ...present.map((floor) => {
      const { throughput, cpu } = result.floorRatios[floor];
      return `| ${floor} | ${list(throughput)} (median ${fmt(median(throughput))}) | ${list(cpu)} (median ${fmt(median(cpu))}) |`;
    }),
  ];
}

function sideRow(result: TunnelAbResult, side: Side): string {
  const closed = result.closed[side];
  const steady = result.steady[side];
  const connects = closed.map((r) => r.connectsPerRequest).filter((c): c is number => c !== null);
  return (
    `| ${SIDE_LABELS[side]} ` +
    `| ${fmt(median(closed.map((r) => r.requestsPerSecond)), 0)} | ${fmt(median(closed.map((r) => r.p99)))} | ${fmt(median(closed.map((r) => r.cpuUsPerCall)), 0)} ` +
    `| ${fmt(median(steady.map((r) => r.cpuUsPerCall)), 0)} | ${fmt(median(steady.map((r) => r.p50)))} | ${fmt(median(steady.map((r) => r.p99)))} ` +
    `| ${connects.length > 0 ? fmt(median(connects)) : '—'} |`
  );
}

function rssTable(result: TunnelAbResult): string[] {
  if (result.rssAlong.length === 0) return [];
  // After each round (both clients alike), then the closed-loop calls on to `rssCalls`.
  const mib = (m: { rssMiB: number; peakMiB: number | undefined }): string => `${fmt(m.rssMiB, 1)} (peak ${m.peakMiB === undefined ? '?' : fmt(m.peakMiB, 1)})`;
  const start = result.daemonStartRss;
  return [
    '',
    `RSS (VmRSS, peak VmHWM so far; MiB) from /proc. Goal for the daemon: start-up peak < 80, after 10,000 calls < 90, after 100,000 < 100, flat. Start-up (synced, no call yet): ${mib(start)}${(start.peakMiB ?? Infinity) < 80 ? ' (met)' : ' (**missed**)'}.`,
    '',
    '| calls taken by each | daemon | stock client |',
    '| ---: | ---: | ---: |',
    ...result.rssAlong.map((row) => `| ${row.calls.toLocaleString('en-US')} | ${mib(row.daemon)} | ${mib(row.stock)} |`),
  ];
}

function section(result: TunnelAbResult): string {
  const loads = SIDES.flatMap((side) => [...result.closed[side], ...result.steady[side]]).map((r) => r.load);
  return [
    `### ${result.label}`,
    '',
    `Load average (1 min) ${fmt(Math.min(...loads))}–${fmt(Math.max(...loads))} during these runs. ${result.rounds} rounds, each: ${result.warmup} warm-up + ${result.requests} calls at ${result.concurrency} in flight, then ${result.steadyCalls} at a steady ${result.rate}/s (open loop); stock and daemon take turns, then the floors; both orders are reversed every other round. The daemon's RSS once synced: ${fmt(result.daemonStartRss.rssMiB, 1)} MiB (peak so far ${result.daemonStartRss.peakMiB === undefined ? '?' : fmt(result.daemonStartRss.peakMiB, 1)} MiB).`,
    '',
    '| goal | target | each round | median | |',
    '| --- | --- | --- | ---: | --- |',
    ...goalsOf(result).map((g) => `| ${g.what} | ${g.goal} | ${g.rounds} | ${g.value} | ${g.isMet ? 'met' : '**missed**'} |`),
    '',
    '| client | req/s | p99 ms | CPU µs/call | CPU µs/call at 250/s | p50 ms at 250/s | p99 ms at 250/s | stock client connects per request |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...SIDES.filter((side) => result.closed[side].length > 0).map((side) => sideRow(result, side)),
    ...floorLines(result),
    ...(result.failures.length === 0
      ? []
      : ['', `Calls that failed (reported, not counted as answered): ${result.failures.map((f) => `${f.run}: ${f.failed} of ${f.of} (${f.firstError})`).join('; ')}.`]),
    ...rssTable(result),
  ].join('\n');
}

export function formatTunnelAb(results: readonly TunnelAbResult[], machine: string): string {
  return [
    `${machine}. The machine is shared (2 cores): the load average is given with each figure; the ratios are per round (stock and daemon measured minutes apart at most), medians.`,
    '',
    'Signed tool calls (`orderStatus`, signed over the exact body) to the tunnel server with the tunnel\'s Host header; the stock client (its own process) tunnels straight to the dev server, the daemon is the built CLI (`median-dev start --json --no-tui`: tunnel, inspector, the example route as its dev server) recording every call. CPU per call: the tunnel client\'s process (the daemon, not its dev server), user + system, all threads.',
    '',
    ...results.map(section).flatMap((text) => [text, '']),
  ].join('\n');
}
