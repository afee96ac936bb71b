/** The BENCHMARKS.md text for the tunnel A/B (tunnel-ab.ts): per tunnel server, the goals with every round's figure. */
import { median } from '../percentiles.js';
import type { FloorMode } from '../floor-tunnel.js';
import type { TunnelAbResult } from './tunnel-ab.js';
import { FLOORS, SIDES, type Side } from './tunnel-ab-sides.js';

const fmt = (value: number, digits = 2): string => value.toFixed(digits);
const list = (values: readonly number[], digits = 2): string => values.map((v) => fmt(v, digits)).join(', ');

/** The floors that record every call, as the daemon must: a goal none of them meets is one its design of that shape cannot. */
const RECORDING_FLOORS: readonly FloorMode[] = ['record', 'proxy'];

interface Goal {
  what: string;
  goal: string;
  rounds: string;
  value: string;
  isMet: boolean;
  /** Each floor measured in the same rounds: its median and whether that meets the goal. */
  floors: { floor: FloorMode; value: string; isMet: boolean }[];
}

interface Measure {
  what: string;
  goal: string;
  daemon: readonly number[];
  floor(floor: FloorMode): readonly number[];
  meets(value: number): boolean;
  show(value: number): string;
}

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${fmt(value)}`;

function measuresOf(result: TunnelAbResult): Measure[] {
  return [
    {
      what: 'req/s ÷ stock client (closed loop)',
      goal: '≥ 1.1',
      daemon: result.throughputRatios,
      floor: (floor) => result.floorRatios[floor].throughput,
      meets: (value) => value >= 1.1,
      show: (value) => fmt(value),
    },
    {
      what: `daemon CPU per call ÷ stock client's, at ${result.rate} calls/s`,
      goal: '≤ 2',
      daemon: result.cpuRatios,
      floor: (floor) => result.floorRatios[floor].cpu,
      meets: (value) => value <= 2,
      show: (value) => fmt(value),
    },
    {
      what: `p99 added over the stock client, at ${result.rate} calls/s (ms)`,
      goal: '≤ +1 ms',
      daemon: result.p99Added,
      floor: (floor) => result.floorRatios[floor].p99Added,
      meets: (value) => value <= 1,
      show: signed,
    },
  ];
}

function goalsOf(result: TunnelAbResult): Goal[] {
  return measuresOf(result).map((measure) => {
    const value = median(measure.daemon);
    const floors = FLOORS.filter((floor) => measure.floor(floor).length > 0).map((floor) => {
      const at = median(measure.floor(floor));
      return { floor, value: measure.show(at), isMet: measure.meets(at) };
    });
    return { what: measure.what, goal: measure.goal, rounds: list(measure.daemon), value: measure.show(value), isMet: measure.meets(value), floors };
  });
}

/** The goal's verdict, and when it is missed, whether the floors that record every call meet it in the same rounds. */
function verdictOf(goal: Goal): string {
  if (goal.isMet) return 'met';
  const recording = goal.floors.filter((f) => RECORDING_FLOORS.includes(f.floor));
  if (recording.length === 0) return '**missed**';
  const meeting = recording.filter((f) => f.isMet);
  return meeting.length === 0
    ? '**missed**; no recording floor meets it in these rounds either'
    : `**missed**; met by the ${meeting.map((f) => `\`${f.floor}\``).join(' and ')} floor${meeting.length > 1 ? 's' : ''}`;
}

function floorsCell(goal: Goal): string {
  return goal.floors.length === 0 ? '—' : goal.floors.map((f) => `${f.floor} ${f.value}`).join(', ');
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
function floorLines(result: TunnelAbResult): string[] {
  const present = FLOORS.filter((floor) => result.floorRatios[floor].cpu.length > 0);
  if (present.length === 0) return [];
  return [
    '',
    `| floor ÷ stock client, same rounds | req/s (closed loop) | CPU per call at the steady rate | p99 added at ${result.rate}/s (ms) |`,
    '| --- | --- | --- | --- |',
    ...present.map((floor) => {
      const { throughput, cpu, p99Added } = result.floorRatios[floor];
      return `| ${floor} | ${list(throughput)} (median ${fmt(median(throughput))}) | ${list(cpu)} (median ${fmt(median(cpu))}) | ${list(p99Added)} (median ${signed(median(p99Added))}) |`;
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
    '| goal | target | each round | median | floors, same rounds (medians) | |',
    '| --- | --- | --- | ---: | --- | --- |',
    ...goalsOf(result).map((g) => `| ${g.what} | ${g.goal} | ${g.rounds} | ${g.value} | ${floorsCell(g)} | ${verdictOf(g)} |`),
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
