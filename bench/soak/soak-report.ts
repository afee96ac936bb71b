/** The soak's results as the `## Soak` section of BENCHMARKS.md (and stdout). */
import type { IdleReadings, Sample, SoakResult } from './soak-run.js';

export const SOAK_HEADING = '## Soak';

export const SOAK_TARGETS = Object.freeze({ lostCalls: 0, rssGrowthMB: 10, healSeconds: 5 });

/** Calls after which the daemon counts as warmed up (its heap grown to its working size). */
const WARM_AFTER_CALLS = 10_000;

/** The daemon's reading at the first drop point after WARM_AFTER_CALLS calls, if the run got there. */
function warmSample(r: SoakResult): Sample | undefined {
  const after = Math.ceil(WARM_AFTER_CALLS / r.options.dropEvery) * r.options.dropEvery;
  return [...r.daemon.samples].sort((a, b) => a.atMs - b.atMs).find((s) => s.sent >= after && s.sent < r.options.calls);
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const mib = (n: number): string => `${n.toFixed(1)} MiB`;
const sec = (ms: number | null): string => (ms === null ? '—' : (ms / 1000).toFixed(2));

export interface SoakCheck {
  what: string;
  target: string;
  measured: string;
  isMet: boolean;
}

export function checkSoak(r: SoakResult): SoakCheck[] {
  const growthMiB = r.daemon.end.rssMiB - r.daemon.start.rssMiB;
  const growthMB = (growthMiB * 1024 * 1024) / 1e6;
  const healed = r.drops.filter((d) => d.error === null).length;
  const warm = warmSample(r);
  const warmGrowthMiB = warm ? r.daemon.end.rssMiB - warm.rssMiB : undefined;
  const syncedMs = r.drops.map((d) => d.syncedMs).filter((ms): ms is number => ms !== null);
  const slowestHealMs = syncedMs.length > 0 ? Math.max(...syncedMs) : null;
  return [
    { what: 'calls lost (answered through the tunnel, missing from the store)', target: '0', measured: int(r.calls.lost + r.calls.uncheckable), isMet: r.calls.lost + r.calls.uncheckable === 0 },
    { what: 'every logical call delivered (after retries)', target: int(r.options.calls), measured: int(r.calls.answered), isMet: r.calls.answered === r.options.calls },
    { what: 'daemon RSS growth, start → end', target: `< ${SOAK_TARGETS.rssGrowthMB} MB`, measured: `${growthMiB >= 0 ? '+' : ''}${mib(growthMiB)} (${growthMB.toFixed(0)} MB)`, isMet: growthMB < SOAK_TARGETS.rssGrowthMB },
    ...(r.daemon.idle ? [idleCheck(r, r.daemon.idle)] : []),
    ...(warm && warmGrowthMiB !== undefined
      ? [{
          what: `daemon RSS growth after the first ${int(warm.sent)} calls → end (warm-up left out)`,
          target: `< ${SOAK_TARGETS.rssGrowthMB} MB`,
          measured: `${warmGrowthMiB >= 0 ? '+' : ''}${mib(warmGrowthMiB)} (${((warmGrowthMiB * 1024 * 1024) / 1e6).toFixed(0)} MB)`,
          isMet: (warmGrowthMiB * 1024 * 1024) / 1e6 < SOAK_TARGETS.rssGrowthMB,
        }]
      : []),
    { what: 'tunnel drops healed (open again, endpoint synced)', target: `${r.drops.length} of ${r.drops.length}`, measured: `${healed} of ${r.drops.length}`, isMet: healed === r.drops.length },
    {
      what: 'slowest heal, drop → endpoint synced (a dropped tunnel heals within 5 s)',
      target: `≤ ${SOAK_TARGETS.healSeconds} s`,
      measured: slowestHealMs === null ? '—' : `${sec(slowestHealMs)} s`,
      isMet: slowestHealMs !== null && slowestHealMs <= SOAK_TARGETS.healSeconds * 1000,
    },
  ];
}

/**
 * Start and end both idle: the start reading is taken before any call, the
 * end one right after the last, while V8's heap still has the headroom it
 * grows under load (the old generation may fill up to its live size + 8 MB
 * before the next full GC); V8's memory reducer gives that back once the
 * daemon sits idle for a few seconds.
 */
function idleCheck(r: SoakResult, idle: IdleReadings): SoakCheck {
  const growthMiB = idle.last.rssMiB - r.daemon.start.rssMiB;
  const growthMB = (growthMiB * 1024 * 1024) / 1e6;
  return {
    what: `daemon RSS growth, start → after ${idle.seconds} s idle (both readings idle)`,
    target: `< ${SOAK_TARGETS.rssGrowthMB} MB`,
    measured: `${growthMiB >= 0 ? '+' : ''}${mib(growthMiB)} (${growthMB.toFixed(0)} MB)`,
    isMet: growthMB < SOAK_TARGETS.rssGrowthMB,
  };
}

function reasons(byReason: Record<string, number>): string {
  const entries = Object.entries(byReason).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? 'none' : entries.map(([reason, n]) => `${int(n)} × ${reason}`).join('; ');
}

export function formatSoakReport(r: SoakResult): string {
  const m = r.machine;
  const o = r.options;
  const d = r.daemon;
  const freshSeconds = (r.load.lastFreshSendAt - r.load.firstSendAt) / 1000;
  const totalSeconds = (r.load.doneAt - r.load.firstSendAt) / 1000;
  const cpuSeconds = d.end.cpuSeconds - d.start.cpuSeconds;
  const lines = [
    `Run ${m.date} with \`npm run soak\` (bench/soak.ts: \`node dist/bench/soak.js --calls ${o.calls} --rate ${o.rate}\`), not part of \`npm test\`.`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}. 1-minute load average before the run: ${m.loadAverage}.`,
    '',
    'What runs, all on 127.0.0.1: the loopback localtunnel-compatible server and the Median emulator in the soak process; the real',
    "built CLI as a child process, run as the package's bin runs it (the node options of its shebang line, bench/bin-node-args.ts),",
    '',
    `    ${r.commandLine}`,
    '',
    'and the example route as its dev server. Each call is sent the way Median sends one: a signed POST (`median-signature` over',
    'the exact body, freshly timestamped on every attempt, with the secret derived from the key) to the URL of the endpoint the',
    "emulator has synced, i.e. to the public tunnel hostname, through the loopback tunnel server (`Host: <id>.lt.median.test`),",
    `over a keep-alive agent. Fresh calls leave at a steady ${o.rate}/s (open loop: an outage does not slow them down), at most`,
    `${o.concurrency} in flight. A call refused during an outage is retried with the same toolCallId after the heal (back-off from`,
    `250 ms, at most 20 attempts), so each logical call is delivered once. Before every ${int(o.dropEvery)}th call the tunnel is dropped on the`,
    'tunnel server, alternately `dropClient(id, {forget: true})` (the client registers again) and `refuseName(id)` + the same drop (the',
    'reconnect gets another hostname: env file, dev server restart and a PATCH of the endpoint follow). The daemon\'s health probe',
    'fetches `https://<id>.lt.median.test/…` every 15 s; a preload (bench/soak/offline-dns.ts) makes that name fail locally instead of',
    'asking the DNS server, so nothing leaves the machine.',
    '',
    '### Targets',
    '',
    '| what | target | measured | |',
    '| --- | --- | --- | --- |',
    ...checkSoak(r).map((c) => `| ${c.what} | ${c.target} | ${c.measured} | ${c.isMet ? 'met' : '**missed**'} |`),
    '',
    '### Calls',
    '',
    '| | |',
    '| --- | ---: |',
    `| logical calls sent | ${int(o.calls)} |`,
    `| rate (fresh calls) | ${o.rate}/s asked, ${int(o.calls / Math.max(freshSeconds, 0.001))}/s achieved; the latest fresh call left ${int(r.load.maxLagMs)} ms after its time (${int(r.load.lateSends)} more than 100 ms late) |`,
    `| duration | ${freshSeconds.toFixed(0)} s of fresh calls, ${totalSeconds.toFixed(0)} s until the last retry was answered |`,
    `| HTTP attempts | ${int(r.load.attempts)} (${int(r.load.retries)} retries), at most ${r.load.maxInFlight} in flight |`,
    `| answered (2xx from the route through the tunnel) | ${int(r.calls.answered)} (${int(r.calls.wellFormed)} with the route's \`{result}\` for that order) |`,
    `| given up after 20 attempts | ${int(r.calls.givenUp)} |`,
    `| recorded (found in the store by toolCallId) | ${int(r.calls.recorded)} |`,
    `| **calls lost** (answered, not in the store) | **${int(r.calls.lost)}**${r.calls.uncheckable > 0 ? ` (+ ${int(r.calls.uncheckable)} never checked)` : ''} |`,
    `| refused during outages (attempts / distinct calls) | ${int(r.refusedDuringOutage.attempts)} / ${int(r.refusedDuringOutage.calls)}: ${reasons(r.refusedDuringOutage.byReason)} |`,
    `| failed outside any outage | ${int(r.failedOutsideOutage.attempts)}${r.failedOutsideOutage.attempts > 0 ? `: ${reasons(r.failedOutsideOutage.byReason)}` : ''} |`,
    `| answer latency of the answering attempts | p50 ${r.latency.p50.toFixed(1)} ms, p90 ${r.latency.p90.toFixed(1)} ms, p99 ${r.latency.p99.toFixed(1)} ms, max ${int(r.latency.max)} ms |`,
    `| \`call\` events printed by the CLI | ${int(r.callEvents)}; answered calls without one: ${int(r.answeredWithoutCallEvent)} |`,
    `| store checks | ${r.store.checks} reads of the whole store (\`createCallStore(dataDir).list()\`, slowest ${int(r.store.maxReadMs)} ms); ${int(r.store.recordedTwice)} calls recorded twice (a retry of a call whose answer was cut by a drop); ${int(r.store.unexpectedCount)} records not valid/answered/200 |`,
    `| records in the store at the end | ${int(r.store.storeRecordsAtEnd)} (retention keeps the newest 45,000–50,000, so the store was read every ${int(o.dropEvery)} calls) |`,
  ];
  if (r.store.errors.length > 0) lines.push(`| store read errors | ${r.store.errors.join('; ')} |`);
  if (r.store.lostExamples.length > 0) lines.push('', `Lost toolCallIds (first ${r.store.lostExamples.length}): ${r.store.lostExamples.join(', ')}.`);
  if (r.failedOutsideOutage.examples.length > 0) lines.push('', `Failures outside outages (first ${r.failedOutsideOutage.examples.length}): ${r.failedOutsideOutage.examples.join('; ')}.`);

  lines.push(
    '',
    '### Heal time of each drop',
    '',
    'Seconds from the drop, by the `at` of the CLI\'s `--json` events: `tunnel` down, `tunnel` open, `endpoint` changed (only when the',
    'hostname changed), `endpoint` synced at the reopened URL; then the first answered call sent after the drop (as the sender saw it).',
    '',
    '| # | kind | before call | new hostname | down | open | changed | synced | first answer | refused attempts |',
    '| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.drops.map(
      (x) =>
        `| ${x.number} | ${x.kind} | ${int(x.beforeCall)} | ${x.error ? `**not healed**: ${x.error}` : x.isHostnameChange ? 'yes' : 'no'} | ${sec(x.downMs)} | ${sec(x.openMs)} | ${sec(x.changedMs)} | ${sec(x.syncedMs)} | ${sec(x.firstAnswerMs)} | ${int(x.refusedAttempts)} |`,
    ),
  );
  const healed = r.drops.filter((x) => x.syncedMs !== null).map((x) => x.syncedMs!);
  if (healed.length > 0) lines.push('', `Drop → endpoint synced: median ${sec([...healed].sort((a, b) => a - b)[Math.floor((healed.length - 1) / 2)]!)} s, max ${sec(Math.max(...healed))} s.`);
  const dropSpacingSeconds = o.dropEvery / o.rate;
  const slowOpens = r.drops.filter((x) => x.openMs !== null && x.openMs > 1_000);
  if (slowOpens.length > 0 && dropSpacingSeconds < 60) {
    lines.push(
      '',
      `Most of each heal is the wait before the reopen (down → open), and it grows drop after drop: src/tunnel/start-tunnel.ts counts a`,
      `loss within \`flapWindowMs\` (60 s) of the previous loss as flapping, however long the tunnel carried calls in between, and a`,
      `flapping tunnel skips the quick 0.2 s reopen and starts further up the 1 s → 10 s backoff (reconnect-delay.ts \`reopenDelayMs\`).`,
      `Here the drops are ${dropSpacingSeconds.toFixed(0)} s apart, each after ${int(o.dropEvery)} answered calls, so every drop after the first counts as flapping.`,
    );
  }

  const growth = d.end.rssMiB - d.start.rssMiB;
  const idle = d.idle;
  const idleGrowth = idle ? idle.last.rssMiB - d.start.rssMiB : 0;
  lines.push(
    '',
    '### The daemon process',
    '',
    `The CLI's process (pid of \`median-dev start\`; the dev server is a separate process and not counted), read from /proc/<pid>/status,`,
    '/proc/<pid>/fd and /proc/<pid>/stat.',
    '',
    `| | start (synced, before any call) | end (all calls answered and checked) |${idle ? ` after ${idle.seconds} s idle |` : ''}`,
    `| --- | ---: | ---: |${idle ? ' ---: |' : ''}`,
    `| RSS (VmRSS) | ${mib(d.start.rssMiB)} | ${mib(d.end.rssMiB)} (${growth >= 0 ? '+' : ''}${mib(growth)}; peak VmHWM ${mib(d.end.peakRssMiB)}) |` +
      (idle ? ` ${mib(idle.last.rssMiB)} (${idleGrowth >= 0 ? '+' : ''}${mib(idleGrowth)}; lowest ${mib(Math.min(...idle.rssMiB))}) |` : ''),
    `| open file descriptors | ${d.start.openFds} (${Object.entries(d.fdKindsStart).map(([k, v]) => `${v} ${k}`).join(', ')}) | ${d.end.openFds} (${Object.entries(d.fdKindsEnd).map(([k, v]) => `${v} ${k}`).join(', ')}) |` +
      (idle ? ` ${idle.last.openFds} |` : ''),
    `| CPU time (user + system) | ${d.start.cpuSeconds.toFixed(1)} s | ${d.end.cpuSeconds.toFixed(1)} s: ${cpuSeconds.toFixed(1)} s during the soak, ${int((cpuSeconds * 1e6) / Math.max(1, r.load.attempts))} µs per attempt, ${((cpuSeconds / Math.max(totalSeconds, 0.001)) * 100).toFixed(0)} % of a core |` +
      (idle ? ` ${idle.last.cpuSeconds.toFixed(1)} s (${(idle.last.cpuSeconds - d.end.cpuSeconds).toFixed(2)} s idle) |` : ''),
    ...(idle
      ? [
          '',
          `After the last call the daemon was left idle for ${idle.seconds} s, its RSS read every second (${idle.rssMiB.map((v) => v.toFixed(1)).join(', ')} MiB):`,
          "under load V8's old generation grows to its live size + 8 MB before each full GC, and V8's memory reducer gives that headroom back",
          'once the daemon is idle for a few seconds; start and the idle reading are both taken idle.',
        ]
      : []),
    '',
    'Along the way (every 5 s and at each drop; a selection):',
    '',
    '| fresh calls sent | answered | RSS | fds | CPU s |',
    '| ---: | ---: | ---: | ---: | ---: |',
  );
  const samples = [...d.samples].sort((a, b) => a.atMs - b.atMs);
  const step = Math.max(1, Math.ceil(samples.length / 12));
  for (let i = 0; i < samples.length; i += 1) {
    if (i % step !== 0 && i !== samples.length - 1) continue;
    const s = samples[i]!;
    lines.push(`| ${int(s.sent)} | ${int(s.answered)} | ${mib(s.rssMiB)} | ${s.openFds} | ${s.cpuSeconds.toFixed(1)} |`);
  }
  lines.push(
    '',
    `Errors the CLI reported: ${d.errorEvents.length === 0 ? 'none' : d.errorEvents.join('; ')}. Stopped with SIGINT: exit ${d.stop.code ?? d.stop.signal} after ${int(d.stop.stopMs)} ms` +
      `${d.stop.killed ? ' (had to be killed)' : ''}; dev server groups left behind: ${d.stop.strayGroups.length === 0 ? 'none' : d.stop.strayGroups.join(', ')}; processes still alive afterwards: ${d.leftRunning.length}.`,
    `The soak process itself (sender, tunnel server, emulator, store reads) used ${r.soakCpuSeconds.toFixed(0)} s of CPU on the same 2 cores.`,
  );
  return lines.join('\n');
}
