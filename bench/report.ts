/** The results as a Markdown section (for BENCHMARKS.md and stdout). */
import type { ProfileSummary } from './cpu-profile-summary.js';
import { pct, pctAgainst } from './percent.js';
import type { MachineInfo } from './machine.js';
import type { CallsCommandResult } from './scenarios/calls-command.js';
import type { DaemonRssResult } from './scenarios/daemon-rss.js';
import type { ProxyDiagnosis } from './scenarios/proxy-diagnosis.js';
import { PROXY_SCENARIOS, medianRatio, type ProxyThroughputResult } from './scenarios/proxy-throughput.js';
import type { RecorderAppendsResult } from './scenarios/recorder-appends.js';
import { HEAL_TARGET_SECONDS, type HealTimeResult } from './scenarios/heal-time.js';
import type { TuiBenchResult } from './scenarios/tui-responsiveness.js';
import type { InspectorBenchResult } from './scenarios/inspector-paint.js';


export const SECTION_HEADING = '## Proxy, recorder and daemon: measured';

export const TARGETS = Object.freeze({
  /** Recording proxy ÷ bare http-proxy-3 req/s (was 0.8; the hot-path goal is 0.95). */
  throughputRatio: 0.95,
  p50AddedMs: 0.5,
  appendsPerSecond: 20_000,
  callsCommandMs: 1_000,
  daemonRssMiB: 150,
  healSeconds: HEAL_TARGET_SECONDS,
  /** Issue 5 asks for a TUI that stays responsive and sets no number; these are the bars we hold it to. */
  tuiOpenMs: 1_000,
  tuiKeyMs: 50,
  /** The browser inspector's issue: first paint with 100,000 records under 1 s, a scroll step under a frame (16 ms). */
  inspectorFirstPaintMs: 1_000,
  inspectorScrollStepMs: 16,
});

export interface BenchResults {
  machine: MachineInfo;
  totalSeconds: number;
  proxy: ProxyThroughputResult;
  diagnosis: ProxyDiagnosis | undefined;
  recorder: { runs: RecorderAppendsResult[]; median: RecorderAppendsResult };
  calls: CallsCommandResult;
  daemon: DaemonRssResult;
  tui: TuiBenchResult;
  heal: HealTimeResult;
  inspector: InspectorBenchResult;
}

export interface TargetCheck {
  what: string;
  target: string;
  measured: string;
  isMet: boolean;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number, digits = 2): string => n.toFixed(digits);
const mib = (n: number): string => `${n.toFixed(1)} MiB`;

export function checkTargets(r: BenchResults): TargetCheck[] {
  // 150 MB taken as decimal megabytes (the stricter reading is MiB; both are shown).
  const rssMB = (r.daemon.after.rssMiB * 1024 * 1024) / 1e6;
  return [
    {
      what: 'recording proxy throughput ÷ bare http-proxy-3',
      target: `≥ ${pct(TARGETS.throughputRatio)}`,
      measured: pctAgainst(r.proxy.throughputRatio, TARGETS.throughputRatio),
      isMet: r.proxy.throughputRatio >= TARGETS.throughputRatio,
    },
    {
      what: 'p50 latency added over bare http-proxy-3',
      target: `≤ ${TARGETS.p50AddedMs} ms`,
      measured: `${ms(r.proxy.p50AddedMs, 3)} ms`,
      isMet: r.proxy.p50AddedMs <= TARGETS.p50AddedMs,
    },
    {
      what: 'recorder appends per second',
      target: `≥ ${int(TARGETS.appendsPerSecond)}`,
      measured: `${int(r.recorder.median.appendsPerSecond)} (median of ${r.recorder.runs.length})`,
      isMet: r.recorder.median.appendsPerSecond >= TARGETS.appendsPerSecond,
    },
    {
      // Judged by the slowest run, not the median the row also gives.
      what: `\`calls --json --limit 100\` on ${int(r.calls.storeRecords)} records (CLI wall clock: median, and the slowest run judged)`,
      target: `< ${int(TARGETS.callsCommandMs)} ms`,
      measured: `${int(r.calls.cliMedianMs)} ms (max ${int(r.calls.cliMaxMs)})`,
      isMet: r.calls.cliMaxMs < TARGETS.callsCommandMs,
    },
    {
      what: `daemon RSS after ${int(r.daemon.calls)} calls`,
      target: `< ${TARGETS.daemonRssMiB} MB`,
      measured: `${mib(r.daemon.after.rssMiB)} (${rssMB.toFixed(0)} MB)`,
      isMet: rssMB < TARGETS.daemonRssMiB,
    },
    {
      what: `TUI opening with ${int(r.tui.records)} records (start to first frame)`,
      target: `< ${int(TARGETS.tuiOpenMs)} ms (our bar)`,
      measured: `${int(r.tui.openMs)} ms`,
      isMet: r.tui.openMs < TARGETS.tuiOpenMs,
    },
    {
      what: `TUI key press incl. its frame (${r.tui.all.presses} presses of j, PageDown, G, g)`,
      target: `< ${TARGETS.tuiKeyMs} ms (our bar)`,
      measured: `mean ${ms(r.tui.all.meanMs, 1)} ms, p99 ${ms(r.tui.all.p99Ms, 1)} ms`,
      isMet: r.tui.all.p99Ms < TARGETS.tuiKeyMs,
    },
    {
      what: 'dropped tunnel healed: drop to endpoint synced (slowest of the runs)',
      target: `≤ ${TARGETS.healSeconds} s`,
      measured: `${r.heal.maxSeconds.toFixed(2)} s (median ${r.heal.medianSeconds.toFixed(2)} s)`,
      isMet: r.heal.maxSeconds <= TARGETS.healSeconds,
    },
    ...inspectorChecks(r.inspector),
  ];
}

function inspectorChecks(i: InspectorBenchResult): TargetCheck[] {
  if (i.skipped) return [{ what: 'browser inspector (first paint, scroll step)', target: 'measured', measured: `skipped: ${i.skipped}`, isMet: false }];
  return [
    {
      what: `inspector first paint with ${int(i.records)} records (link opened to the first rows shown)`,
      target: `< ${int(TARGETS.inspectorFirstPaintMs)} ms`,
      measured: `${int(i.firstRowsMs)} ms`,
      isMet: i.firstRowsMs < TARGETS.inspectorFirstPaintMs,
    },
    {
      what: `inspector scroll step (${i.wheel.steps} wheel steps, ${i.page.steps} page steps: the page's work, scroll listeners and the frame that redraws and lays out the list)`,
      target: `< ${TARGETS.inspectorScrollStepMs} ms`,
      measured: `p99 ${ms(Math.max(i.wheel.p99Ms, i.page.p99Ms), 1)} ms, max ${ms(Math.max(i.wheel.maxMs, i.page.maxMs), 1)} ms`,
      isMet: Math.max(i.wheel.p99Ms, i.page.p99Ms) < TARGETS.inspectorScrollStepMs,
    },
  ];
}

function diagnosisLines(p: ProxyDiagnosis): string[] {
  const perReq = (msTotal: number): string => ((msTotal * 1000) / p.profiledRequests).toFixed(0);
  const lines = [
    'The per-request steps of recording, each timed alone in a loop in the bench process (no sockets, no competition):',
    '',
    '| step | runs | µs per call |',
    '| --- | --- | ---: |',
    ...p.steps.map((s) => `| ${s.step} | ${s.where} | ${s.microseconds.toFixed(1)} |`),
    `| **sum** | | **${p.steps.reduce((sum, s) => sum + s.microseconds, 0).toFixed(1)}** |`,
    '',
    `Each proxy then handled ${int(p.profiledRequests)} requests under \`node --cpu-prof\` (profiles kept in \`${p.profileDir}\`).`,
    'Sampled main-thread time, µs per request, self time by area. `writev` (the socket write) is listed apart: on shared',
    'cores its samples are mostly the proxy waiting for a core after waking its peer, not work.',
    '',
    '| area | bare http-proxy-3 | recording proxy |',
    '| --- | ---: | ---: |',
  ];
  const areaMs = (summary: ProfileSummary, name: string): number => summary.areas.find((a) => a.name === name)?.ms ?? 0;
  const writev = (summary: ProfileSummary): number => summary.functions.find((f) => f.name === 'writev')?.ms ?? 0;
  const names = new Set([...p.recording.areas.map((a) => a.name), ...p.bare.areas.map((a) => a.name)]);
  const rows = [...names]
    .map((name) => {
      const native = name === 'native/builtins';
      const bareMs = areaMs(p.bare, name) - (native ? writev(p.bare) : 0);
      const recMs = areaMs(p.recording, name) - (native ? writev(p.recording) : 0);
      return { name: native ? 'native/builtins (without writev)' : name, bareMs, recMs };
    })
    .sort((a, b) => b.recMs - a.recMs)
    .filter((row) => ((row.recMs + row.bareMs) * 1000) / p.profiledRequests >= 1);
  for (const row of rows) lines.push(`| ${row.name} | ${perReq(row.bareMs)} | ${perReq(row.recMs)} |`);
  lines.push(`| writev (see above) | ${perReq(writev(p.bare))} | ${perReq(writev(p.recording))} |`);
  lines.push(`| **busy total** | **${perReq(p.bare.busyMs)}** | **${perReq(p.recording.busyMs)}** |`);
  lines.push('', "median-dev's own functions in the recording proxy, inclusive time (µs per request):", '', '| function | µs/req | share of busy |', '| --- | ---: | ---: |');
  for (const f of p.recording.ownInclusive.slice(0, 12)) lines.push(`| \`${f.name}\` | ${perReq(f.ms)} | ${f.percent.toFixed(1)} % |`);
  lines.push('', 'Top self time in the recording proxy:', '', '| function | µs/req | share of busy |', '| --- | ---: | ---: |');
  for (const f of p.recording.functions.slice(0, 12)) lines.push(`| \`${f.name}\` | ${perReq(f.ms)} | ${f.percent.toFixed(1)} % |`);
  return lines;
}

export function formatReport(r: BenchResults): string {
  const m = r.machine;
  const p = r.proxy;
  const checks = checkTargets(r);
  const lines: string[] = [
    `Run ${m.date} with \`npm run bench\` (bench/run.ts); the whole run took ${r.totalSeconds.toFixed(0)} s.`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}.`,
    `All traffic is on 127.0.0.1. The ${m.cores} cores are shared by the load generator, the proxy, the target (and the`,
    "recorder's fsyncs), so absolute numbers describe this small machine as a whole; the ratios between scenarios say more.",
    `1-minute load average just before the run: ${m.loadAverage}${m.loadAverage >= 0.5 ? ' (other work was running on the machine, so expect noise)' : ' (the machine was otherwise idle)'}.`,
    '',
    '### Targets',
    '',
    '| what | target | measured | |',
    '| --- | --- | --- | --- |',
    ...checks.map((c) => `| ${c.what} | ${c.target} | ${c.measured} | ${c.isMet ? 'met' : '**missed**'} |`),
    '',
    '### 1. Proxy throughput and latency',
    '',
    `Signed tool calls (a ${'~300-byte'} JSON body, \`median-signature\` over its exact bytes), node:http keep-alive Agent with`,
    `maxSockets ${p.concurrency}, concurrency ${p.concurrency}; per run ${int(p.warmup)} warm-up + ${int(p.requests)} measured requests; ${p.rounds} round${p.rounds === 1 ? '' : 's'},`,
    'scenarios interleaved (order rotated each round) after a first round of each that is not measured (a fresh process\'s',
    'first runs are its slowest); the table shows the median run of each by throughput. The target',
    'answers `{"result":{"ok":true,…}}` at once. CPU is user + system time of each process (all threads) per request, the',
    'median over the runs. The last two rows are diagnostics, not targets: the recording proxy with its records built and',
    'counted but not stored, which splits what recording costs between the proxy and the recorder; and with each record\'s',
    'JSON line appended raw, one write per turn (no masking, call index or checks: bench/raw-record-writer.ts), the floor',
    'of storing every call.',
    '',
    '| scenario | req/s | p50 ms | p90 ms | p99 ms | req/s of each run | CPU µs/req: proxy | target | client |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
  ];
  for (const name of PROXY_SCENARIOS) {
    const s = p.scenarios[name];
    const med = s.median;
    lines.push(
      `| ${s.label} | ${int(med.requestsPerSecond)} | ${ms(med.p50, 3)} | ${ms(med.p90, 3)} | ${ms(med.p99, 3)} | ${s.runs.map((x) => int(x.requestsPerSecond)).join(', ')} | ${name === 'direct' ? '—' : int(s.cpu.proxy)} | ${int(s.cpu.target)} | ${int(s.cpu.client)} |`,
    );
  }
  const rec = p.recording;
  lines.push(
    '',
    `Recording ÷ bare throughput: **${pctAgainst(p.throughputRatio, TARGETS.throughputRatio)}** (target ≥ ${pct(TARGETS.throughputRatio)}; round by round: ${p.scenarios.recording.runs
      .map((run, i) => pct(run.requestsPerSecond / p.scenarios.bare.runs[i]!.requestsPerSecond))
      .join(', ')}). ` +
      `p50 added over bare: **${ms(p.p50AddedMs, 3)} ms** (target ≤ ${TARGETS.p50AddedMs} ms); p99 added: ${ms(p.p99AddedMs, 3)} ms. ` +
      `The floor of storing each call (records written raw) ÷ bare: ${pct(medianRatio(p, 'written', 'bare'))}; recording ÷ that floor: ${pct(medianRatio(p, 'recording', 'written'))} (medians of the rounds' ratios).`,
  );
  const bareCpu = p.scenarios.bare.cpu.proxy;
  const droppedCpu = p.scenarios.dropped.cpu.proxy;
  const recordingCpu = p.scenarios.recording.cpu.proxy;
  lines.push(
    '',
    bareCpu <= droppedCpu && droppedCpu <= recordingCpu
      ? `CPU per request: the recording proxy adds ${int(recordingCpu - bareCpu)} µs over the bare proxy (${int(bareCpu)} → ${int(recordingCpu)} µs); ` +
        `about ${int(droppedCpu - bareCpu)} µs of it is the proxy's own work (classifying, verifying, building the record) and ${int(recordingCpu - droppedCpu)} µs the recorder's (masking, JSON, the durable write).`
      : `CPU per request: bare ${int(bareCpu)} µs, records not stored ${int(droppedCpu)} µs, recording ${int(recordingCpu)} µs; these runs were too noisy to split the cost between proxy and recorder.`,
  );
  if (rec) {
    lines.push(
      '',
      `The recording proxy recorded ${int(rec.recorded)} calls (signatures: ${Object.entries(rec.signatures).map(([k, v]) => `${k} ${int(v)}`).join(', ')}; ` +
        `verdicts: ${Object.entries(rec.verdicts).map(([k, v]) => `${k} ${int(v)}`).join(', ')}; ${int(rec.appendFailures)} append failures); ` +
        `the store holds ${int(rec.storeRecords)} after retention. Every run's records were on disk at most ${int(r.proxy.maxSettleMs)} ms after its last answer.`,
    );
  }
  if (r.diagnosis) lines.push('', '#### Where the time goes', '', ...diagnosisLines(r.diagnosis));

  const a = r.recorder.median;
  lines.push(
    '',
    '### 2. Recorder appends',
    '',
    `${int(a.records)} realistic records (~${int(a.storeBytes / Math.max(1, a.storeRecords))} bytes of JSON each; the key masked as in the daemon) appended with ` +
      `${a.inFlight} in flight, each append resolving once its record is written to the OS (the recorder's default: it survives a crash or kill -9 of median-dev, and the store is fdatasync'ed in the background within a second; appends that queue while a write runs share the next one); ${r.recorder.runs.length} runs, each into a fresh store.`,
    '',
    `**${int(a.appendsPerSecond)} appends/s** in the median run (${int(a.durationMs)} ms for all, ${a.cpuUsPerRecord.toFixed(1)} µs CPU per record, building the sample records included); ` +
      `runs: ${r.recorder.runs.map((x) => int(x.appendsPerSecond)).join(', ')} appends/s. Each store held ${int(a.storeRecords)} records, ${mib(a.storeBytes / 1024 ** 2)}, afterwards ` +
      `(retention raised to ${int(a.records)} so scenario 3 gets them all; the default keeps 50,000).`,
  );

  const c = r.calls;
  lines.push(
    '',
    '### 3. `median-dev calls --json --limit 100`',
    '',
    `On the store of scenario 2 (${int(c.storeRecords)} records). The real CLI as a child process, wall clock including Node's start-up, ${c.runs} runs:`,
    '',
    `- CLI: median **${int(c.cliMedianMs)} ms**, max ${int(c.cliMaxMs)} ms (runs: ${c.cliMs.map(int).join(', ')} ms); it printed ${c.returned} records.`,
    `- For scale: \`node -e 0\` takes ${int(c.nodeStartupMs)} ms here; in-process \`createCallStore().list({limit: 100})\` takes ${ms(c.listMedianMs)} ms (median); \`count()\` over the whole store ${int(c.countMs)} ms.`,
  );

  const d = r.daemon;
  lines.push(
    '',
    '### 4. Daemon memory',
    '',
    '`node dist/bin/median-dev.js start --tunnel none --no-tui --json --port 0 --no-env-file` with MEDIAN_KEY set, in front of the bench target;',
    `--median-api points at a closed port on 127.0.0.1 (so its one try fails locally: ${d.startupEvents.join(', ')}). ` +
      `${int(d.calls)} signed calls at concurrency ${p.concurrency} through its proxy (${int(d.requestsPerSecond)} req/s, p50 ${ms(d.p50, 3)} ms, p99 ${ms(d.p99, 3)} ms); ` +
      `it printed ${int(d.callEvents)} \`call\` events, ${int(d.validSignatures)} with a valid signature.`,
    '',
    `| | RSS |`,
    `| --- | ---: |`,
    `| at start (after start-up) | ${mib(d.atStart.rssMiB)} |`,
    ...d.along.map((s) => `| after ${int(s.answered)} calls answered | ${mib(s.rssMiB)} |`),
    `| after ${int(d.calls)} calls, all recorded | **${mib(d.after.rssMiB)}** |`,
    ...(d.after.peakMiB !== undefined ? [`| peak (VmHWM) | ${mib(d.after.peakMiB)} |`] : []),
    '',
    `Read from ${d.after.source === '/proc' ? '/proc/<pid>/status' : '`ps -o rss=`'}. Stopped with SIGINT: exit code ${d.stop.code ?? d.stop.signal} after ${int(d.stop.stopMs)} ms${d.stop.killed ? ' (had to be killed)' : ''}.`,
  );

  const t = r.tui;
  lines.push(
    '',
    `### 5. TUI with ${int(t.records)} records`,
    '',
    `The real TUI (\`startTui\`, blessed) in a ${t.width}×${t.height} terminal made of PassThrough streams that say they are a TTY; what it writes is read as a terminal would. ` +
      `A snapshot of ${int(t.records)} records (like scenario 2's) is dispatched, of which the TUI keeps the newest ${int(t.kept)} (its window; older calls are in the store, for \`median-dev calls\` and the inspector); redraws are not throttled (\`redrawIntervalMs: 0\`), so each key press is drawn at once. ` +
      'Each press is written to the input as the terminal sends it and timed until its frame is written out.',
    '',
    `- Opening: **${int(t.openMs)} ms** from \`startTui()\` to the first frame with the records (${int(t.startMs)} ms to the first, empty frame; ${int(t.snapshotMs)} ms for the snapshot and its frame).`,
    `- Key presses: mean **${ms(t.all.meanMs, 1)} ms**, p50 ${ms(t.all.p50Ms, 1)} ms, p99 ${ms(t.all.p99Ms, 1)} ms, max ${ms(t.all.maxMs, 1)} ms over ${t.all.presses} presses; ${int(t.bytesWritten / 1024)} KiB written in all.`,
    '',
    '| key | presses | mean ms | p50 ms | max ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...t.keys.map((k) => `| ${k.key === 'pagedown' ? 'PageDown' : `\`${k.key}\``} | ${k.presses} | ${ms(k.meanMs, 1)} | ${ms(k.p50Ms, 1)} | ${ms(k.maxMs, 1)} |`),
  );

  const h = r.heal;
  const stepNames = h.runs[0]?.steps.map((s) => s.name) ?? [];
  const stepCell = (run: (typeof h.runs)[number], name: string): string => {
    const found = run.steps.find((s) => s.name === name);
    return found?.seconds === null || found === undefined ? '—' : found.seconds.toFixed(2);
  };
  lines.push(
    '',
    '### 6. Heal time (target ≤ 5 s)',
    '',
    'As test/e2e/start/heal.test.ts does it, in the bench: the loopback tunnel server and the Median emulator in the bench process, ' +
      'the built CLI (`median-dev start --json`, the example route as its dev server) as a child. Once the endpoint is synced, the tunnel server forgets ' +
      'the client and gives its name away; timed from that drop to the `endpoint synced` event for the new URL. One fresh daemon (and Median org) per run; ' +
      'the steps are seconds from the drop by the events\' own clock.',
    '',
    `| run | total s | ${stepNames.join(' | ')} |`,
    `| --- | ---: | ${stepNames.map(() => '---:').join(' | ')} |`,
    ...h.runs.map((run, i) => `| ${i + 1} | **${run.seconds.toFixed(2)}** | ${stepNames.map((name) => stepCell(run, name)).join(' | ')} |`),
    '',
    `Median **${h.medianSeconds.toFixed(2)} s**, slowest ${h.maxSeconds.toFixed(2)} s (target ≤ ${HEAL_TARGET_SECONDS} s). ` +
      `Dropped again right after healing (a tunnel lost twice within a minute counts as flapping, and its reopen backs off on purpose): ${h.flapping.map((run) => `${run.seconds.toFixed(2)} s`).join(', ')}.` +
      (h.e2e ? ` The end-to-end heal test's last run on this machine (${h.e2e.at}): ${h.e2e.seconds.toFixed(2)} s.` : ''),
  );
  const i = r.inspector;
  lines.push('', `### 7. Browser inspector with ${int(i.records)} records`, '');
  if (i.skipped) {
    lines.push(`Skipped: ${i.skipped}.`);
  } else {
    lines.push(
      "The inspector's server in the bench process over scenario 2's store (its call index built in " + `${int(i.indexMs)} ms, as the daemon does at start), ` +
        'the page in the system Chromium (headless, 1440×900), as bench/scenarios/inspector-paint.ts describes.',
      '',
      `- First paint: **${int(i.firstRowsMs)} ms** from opening the one-time link to the first call rows in the page (the browser's first-contentful-paint at ${i.firstContentfulPaintMs === null ? '—' : `${int(i.firstContentfulPaintMs)} ms`}).`,
      `- Scroll steps, the page's work (scroll listeners, then the frame that redraws and lays out the list): wheel (120 px) p50 ${ms(i.wheel.p50Ms, 1)} ms, p99 **${ms(i.wheel.p99Ms, 1)} ms**, max ${ms(i.wheel.maxMs, 1)} ms over ${i.wheel.steps}; ` +
        `page p50 ${ms(i.page.p50Ms, 1)} ms, p99 **${ms(i.page.p99Ms, 1)} ms**, max ${ms(i.page.maxMs, 1)} ms over ${i.page.steps}.`,
      `- From a wheel step's scroll event to its frame laid out (the work plus the wait for the next frame): p50 ${ms(i.wheelLatency.p50Ms, 1)} ms, p99 ${ms(i.wheelLatency.p99Ms, 1)} ms.`,
      `- A jump to the middle of the list: its rows shown after ${int(i.jumpMs)} ms (one page request).`,
    );
  }
  return lines.join('\n');
}
