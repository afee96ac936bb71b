/**
 * `npm run bench:quiet` (and a part of `npm run bench`): `show` lookups on
 * 100,000 records, the start-up time of `median-dev start`, and an idle
 * daemon's wakeups and probe requests, in the default configuration (tunnel
 * to the loopback tunnel server, inspector, dev server). Prints the results
 * and rewrites its own section of BENCHMARKS.md.
 *
 *   node dist/bench/lookups-idle-startup.js [--quick] [--no-write]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { describeMachine, type MachineInfo } from './machine.js';
import { median } from './percentiles.js';
import { runIdleQuiet, type IdleQuietResult } from './scenarios/idle-quiet.js';
import { runShowLookups, type ShowLookupsResult } from './scenarios/show-lookups.js';
import { runStartUp, type StartUpResult } from './scenarios/start-up.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
export const LOOKUPS_IDLE_STARTUP_HEADING = '## Idle daemon, `show` lookups and start-up: measured';

const ms = (values: number[]): string => values.map((v) => Math.round(v).toLocaleString('en')).join(', ');
const med = (values: number[]): string => Math.round(median(values)).toLocaleString('en');
const ratios = (a: number[], b: number[]): string => a.map((v, i) => (v / b[i]!).toFixed(2)).join(', ');
const verdict = (isMet: boolean): string => (isMet ? 'met' : '**missed**');

interface Results {
  machine: MachineInfo;
  loadAtEnd: number;
  show: ShowLookupsResult;
  startUp: StartUpResult;
  idle: IdleQuietResult[];
}

export function formatLookupsIdleStartup(r: Results): string {
  const { machine, show, startUp, idle } = r;
  const showGoal = 150;
  const wakeups = idle.map((i) => i.wakeupsPerSecond ?? Number.NaN);
  const fixed = (values: Array<number | null>, digits = 1) => values.map((v) => (v === null ? '?' : v.toFixed(digits))).join(', ');
  const probes = idle.map((i) => i.probesPerMinute);
  return [
    `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}; load average (1 min) ${machine.loadAverage.toFixed(2)} at the start, ${r.loadAtEnd.toFixed(2)} at the end. The 2 cores are shared with other work, so the ratios to \`node -e 0\` measured in the same rounds say more than the absolute times.`,
    '',
    '| what | goal | median (runs) | ÷ `node -e 0` of the same round | |',
    '| --- | --- | --- | --- | --- |',
    `| \`show <toolCallId> --json\`, the oldest of ${show.storeRecords.toLocaleString('en')} records (${show.segments} segments) | < ${showGoal} ms | ${med(show.toolCallIdMs)} ms (${ms(show.toolCallIdMs)}) | ${ratios(show.toolCallIdMs, show.nodeMs)} | ${verdict(median(show.toolCallIdMs) < showGoal)} |`,
    `| \`show <record id> --json\`, same record | < ${showGoal} ms | ${med(show.recordIdMs)} ms (${ms(show.recordIdMs)}) | ${ratios(show.recordIdMs, show.nodeMs)} | ${verdict(median(show.recordIdMs) < showGoal)} |`,
    `| \`calls --json --limit 20\`, same store (for scale) | — | ${med(show.callsLimit20Ms)} ms (${ms(show.callsLimit20Ms)}) | ${ratios(show.callsLimit20Ms, show.nodeMs)} | |`,
    `| \`show --help\` (Node, the bin's chunks and its command line: every command's floor) | — | ${med(show.helpMs)} ms (${ms(show.helpMs)}) | ${ratios(show.helpMs, show.nodeMs)} | |`,
    `| \`node -e 0\` (the floor of any CLI run) | — | ${med(show.nodeMs)} ms (${ms(show.nodeMs)}) | 1 | |`,
    ...(show.extraCaCerts
      ? [
          `| \`node -e 0\` without this machine's \`NODE_EXTRA_CA_CERTS\` | — | ${med(show.extraCaCerts.nodeMs)} ms (${ms(show.extraCaCerts.nodeMs)}) | ${ratios(show.extraCaCerts.nodeMs, show.nodeMs)} | |`,
          `| \`show <toolCallId> --json\` without it | (< ${showGoal} ms) | ${med(show.extraCaCerts.toolCallIdMs)} ms (${ms(show.extraCaCerts.toolCallIdMs)}) | ${ratios(show.extraCaCerts.toolCallIdMs, show.extraCaCerts.nodeMs)} (÷ the line above) | |`,
        ]
      : []),
    `| \`start --json\` → first event | < 200 ms | ${med(startUp.firstEventMs)} ms (${ms(startUp.firstEventMs)}) | ${ratios(startUp.firstEventMs, startUp.nodeMs)} | ${verdict(median(startUp.firstEventMs) < 200)} |`,
    `| \`start --json\` → endpoint synced (loopback tunnel server, emulator) | < 500 ms | ${med(startUp.syncedMs)} ms (${ms(startUp.syncedMs)}) | ${ratios(startUp.syncedMs, startUp.nodeMs)} | ${verdict(median(startUp.syncedMs) < 500)} |`,
    `| idle, ${Math.round(idle[0]?.idleSeconds ?? 0)} s from ${Math.round(idle[0]?.settleSeconds ?? 0)} s after the sync: wakeups per second (voluntary context switches, all threads) | ≤ 1/s | ${fixed(wakeups, 2)} | | ${verdict(wakeups.every((w) => w <= 1))} |`,
    `| same runs: the main thread's wakeups / preemptions (involuntary switches: the machine's load) per second | — | ${fixed(idle.map((i) => i.mainThreadWakeupsPerSecond), 2)} / ${fixed(idle.map((i) => i.preemptionsPerSecond), 2)} | | |`,
    `| the first ${Math.round(idle[0]?.settleSeconds ?? 0)} s after the sync (start-up's garbage collected): wakeups per second | — | ${fixed(idle.map((i) => i.settleWakeupsPerSecond), 2)} | | |`,
    `| idle: probe requests through the tunnel server per minute | ≤ 2 | ${probes.map((p) => p.toFixed(1)).join(', ')} | | ${verdict(probes.every((p) => p <= 2.5))} |`,
    '',
    `**show.** The store was written by the real recorder, so each segment has its call index (\`calls-NNNNNN.idx\` beside it, src/recorder/call-index-file.ts): a lookup of a whole id reads the index (about 95 bytes a record) of the segments whose ids filter (\`calls-NNNNNN.ids\`, src/recorder/ids-filter.ts) may hold it and of the live segment, then the one line it found, and checks it against the index. What \`show\` does in-process (findWithReplays: findByToolCallId, then replaysOf, through one read of the indexes) took ${show.inProcessMs.toFixed(1)} ms (median) and read ${show.inProcessLinesRead} segment lines itself; the rest of the CLI's time is Node's start-up and loading the CLI's modules (see start-up below). Before the index, both lookups scanned every segment (then \`replaysOf\` a second time): 1,951–3,611 ms at load 10–19. \`show --help\` is what every command pays before its own work: Node's start, the bin's chunks (compiled from the code cache each kind of command keeps, src/cli/code-cache.ts) and commander's parse; the lookup and its printing are the difference to \`show <toolCallId>\`.${show.extraCaCerts ? ` This machine sets \`NODE_EXTRA_CA_CERTS\` (${show.extraCaCerts.file}): Node reads and parses that file before any script of ours runs, in every process it starts, so the runs without it, in the same rounds, show how much of Node's own start is the machine's; median-dev cannot skip it (it is read before the bin's first line), and a user's machine without the variable starts Node that much faster.` : ''}`,
    '',
    `**Start-up.** Spawn of \`median-dev start --json --no-tui\` (default configuration; a fresh project, emulator and tunnel server per round) to its first \`--json\` line (the key's source, printed before the daemon's modules load) and to the \`endpoint synced\` event; ${startUp.rounds} rounds. What each command loads is in the section above; calls, show, endpoints and doctor load none of the daemon, blessed, chokidar or http-proxy-3, and \`start --json\` no blessed (test/e2e/cli/lazy-imports.test.ts). After the first line, the synced time is the rest of the daemon's modules, the tunnel's registration, the env file's write (its settle, two reads 40 ms apart so a half-written file is not rewritten, runs from the moment the config is known, beside the module load and the tunnel's registration: a file untouched since is written as the tunnel opens), the dev server's own start (a second Node process) and Median's sync through the tunnel.`,
    '',
    `**Idle.** As \`npm run bench:idle\`: probe requests are requests for the tunnel's public name reaching the tunnel server; wakeups are the daemon's voluntary context switches (every thread) from /proc, counted from ${Math.round(idle[0]?.settleSeconds ?? 0)} s after the sync on; preemptions are apart, as on a shared machine they measure its load. What wakes an idle daemon (strace of its main thread, and Timeout callbacks by the stack that made them): the wake detector's 10 s tick, the probe's look at the tunnel's received bytes every 12 s and the probe itself every 24 s (each probe about five wakeups: its request out through the tunnel server and back down a tunnel socket, the answer, the tunnel socket the server replaces), each of the 3 HTTP servers' 30 s connection check (Node's header and request timeout enforcement, kept), and the emulator-approvals long poll (one held request about every 25 s; a real Median API is never polled). The long poll asks with Node's own HTTP client: with \`fetch\`, Node's bundled undici ticked a 500 ms timer while the request was held, two wakeups a second.`,
  ].join('\n');
}

export async function runLookupsIdleStartupBench(options: { root: string; isQuick: boolean; write: boolean; log(line: string): void }): Promise<Results> {
  const machine = describeMachine();
  const records = options.isQuick ? 10_000 : 100_000;
  // Medians of 9 and 7: on a shared 2-core host one slow moment moved a median of 5 (or 3) by 10-40 ms.
  const rounds = options.isQuick ? 1 : 9;
  options.log(`\n10. show lookups on ${records.toLocaleString('en')} records, start-up, idle daemon (${rounds} rounds)`);
  const show = await runShowLookups({ root: options.root, records, rounds });
  options.log(`  show <toolCallId> ${med(show.toolCallIdMs)} ms, show <rec id> ${med(show.recordIdMs)} ms, calls --limit 20 ${med(show.callsLimit20Ms)} ms, node -e 0 ${med(show.nodeMs)} ms`);
  const startUp = await runStartUp({ root: options.root, rounds: options.isQuick ? 1 : 7 });
  options.log(`  start → first event ${med(startUp.firstEventMs)} ms, → endpoint synced ${med(startUp.syncedMs)} ms`);
  const idle: IdleQuietResult[] = [];
  for (let run = 0; run < (options.isQuick ? 1 : 2); run += 1) {
    idle.push(await runIdleQuiet({ projectDir: join(options.root, `idle-${run}`), idleMs: options.isQuick ? 10_000 : 60_000, settleMs: options.isQuick ? 5_000 : 30_000 }));
    const last = idle.at(-1)!;
    options.log(`  idle: ${last.wakeupsPerSecond?.toFixed(2)} wakeups/s (main thread ${last.mainThreadWakeupsPerSecond?.toFixed(2)}, preemptions ${last.preemptionsPerSecond?.toFixed(2)}/s; first ${Math.round(last.settleSeconds)} s: ${last.settleWakeupsPerSecond?.toFixed(2)}/s), ${last.probesPerMinute.toFixed(1)} probes a minute`);
  }
  const results: Results = { machine, loadAtEnd: describeMachine().loadAverage, show, startUp, idle };
  const report = formatLookupsIdleStartup(results);
  options.log(`\n${LOOKUPS_IDLE_STARTUP_HEADING}\n\n${report}\n`);
  if (options.write && !options.isQuick) await writeSection(BENCHMARKS_FILE, LOOKUPS_IDLE_STARTUP_HEADING, report);
  return results;
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
const FLAGS: BenchFlags = { usage: 'node dist/bench/lookups-idle-startup.js [--quick] [--no-write]', switches: ['--quick', '--no-write'], values: [] };

if (isMain) {
  exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);
  const args = new Set(process.argv.slice(2));
  const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-quiet-'));
  try {
    await runLookupsIdleStartupBench({ root, isQuick: args.has('--quick'), write: !args.has('--no-write'), log: (line) => console.log(line) });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
