/**
 * `npm run bench:heals`: scenario 8 alone (heal times for each way the tunnel
 * fails, and the hostname change with a real `next dev` when
 * `npm run test:frameworks` ran), also run as the last part of `npm run bench`.
 *
 *   node dist/bench/heals.js [--quick] [--no-write]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { runTunnelHeals, type FaultKind, type HealMeasurement, type TunnelHealsResult } from './scenarios/tunnel-heals.js';
import { runProviderHeals, type ProviderHeal } from './scenarios/provider-heals.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

export const HEALS_SECTION_HEADING = '## Heal times: the tunnel as it fails in the real world';
const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
const FRAMEWORKS_RESULT = fileURLToPath(new URL('../../test/e2e/.results/frameworks-next.json', import.meta.url));

/** What `npm run test:frameworks` wrote (test/frameworks/next-dev.framework.ts). */
interface FrameworksResult {
  next: string;
  at: string;
  policies: Array<{ policy: string; firstSyncSeconds: number; tunnelOpenSeconds: number; syncedSeconds: number; healAfterReopenSeconds: number; samePid: boolean; routeSeesNewUrl: boolean }>;
}

async function readFrameworksResult(): Promise<FrameworksResult | undefined> {
  try {
    return JSON.parse(await readFile(FRAMEWORKS_RESULT, 'utf8')) as FrameworksResult;
  } catch {
    return undefined; // the framework test did not run on this checkout
  }
}

const GOALS: Record<FaultKind, { what: string; goal: string; limit: number; field: 'syncedSeconds' | 'downSeconds' }> = {
  dropped: { what: 'dropped tunnel (the server drops and forgets the client; same name again): drop → endpoint synced', goal: '≤ 5 s', limit: 5, field: 'syncedSeconds' },
  'server-restart': { what: 'tunnel server restart (a new one on the same port at once): kill → endpoint synced', goal: '≤ 5 s', limit: 5, field: 'syncedSeconds' },
  'silent-death': { what: 'silent death (sockets open, nothing forwarded): wedge → tunnel down (reopening starts)', goal: '≤ 30 s', limit: 30, field: 'downSeconds' },
  'sleep-wake': { what: 'sleep/wake (daemon and dev server SIGSTOPped, the server forgets the tunnel): SIGCONT → endpoint synced', goal: '≤ 3 s', limit: 3, field: 'syncedSeconds' },
};

const s = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value.toFixed(2)} s`);

export function formatHealsReport(result: TunnelHealsResult, frameworks: FrameworksResult | undefined, header: string, providers: readonly ProviderHeal[] = []): string {
  const lines = [header, ''];
  lines.push(
    'Each fault on a fresh `median-dev start --json` (the example route as its dev server) after its endpoint synced, against the loopback tunnel server and the Median emulator in the bench process; ' +
      `seconds from the fault by the events' own clock. Sleep/wake: stopped ${result.sleepSeconds} s.`,
    '',
    '| what | runs: endpoint synced (tunnel down, tunnel open) | slowest | goal | |',
    '| --- | --- | ---: | --- | --- |',
  );
  for (const [kind, goal] of Object.entries(GOALS) as Array<[FaultKind, (typeof GOALS)[FaultKind]]>) {
    const runs = result.runs.filter((r) => r.kind === kind);
    if (runs.length === 0) continue;
    const slowest = Math.max(...runs.map((r: HealMeasurement) => r[goal.field] ?? Number.POSITIVE_INFINITY));
    const detail = runs.map((r) => `${s(r.syncedSeconds)} (${s(r.downSeconds)}${r.reason ? ` ${r.reason}` : ''}, ${s(r.openSeconds)})`).join('; ');
    lines.push(`| ${goal.what} | ${detail} | ${s(slowest)} | ${goal.goal} | ${slowest <= goal.limit ? 'met' : 'missed'} |`);
  }
  lines.push('');
  if (providers.length > 0) {
    lines.push(
      'The other tunnel providers, each against its fake (a fake `cloudflared` on PATH, the real OpenSSH client and a loopback server playing localhost.run, a fake ngrok agent API): ' +
        'a hostname change (cloudflared killed; the ssh server dropping the connection; the agent serving another URL) → the endpoint changed in place and synced at the new URL.',
      '',
      '| provider | runs: endpoint synced at the new URL (tunnel open) | slowest | goal | |',
      '| --- | --- | ---: | --- | --- |',
    );
    for (const provider of [...new Set(providers.map((p) => p.provider))]) {
      const runs = providers.filter((p) => p.provider === provider);
      const slowest = Math.max(...runs.map((r) => r.syncedSeconds));
      lines.push(`| ${provider} | ${runs.map((r) => `${s(r.syncedSeconds)} (${s(r.openSeconds)})`).join('; ')} | ${s(slowest)} | ≤ 5 s | ${slowest <= 5 ? 'met' : 'missed'} |`);
    }
    lines.push('');
  }
  if (!frameworks) {
    lines.push('Hostname change with a real `next dev`: not measured here (`npm run test:frameworks` has not run on this checkout).');
    return lines.join('\n');
  }
  lines.push(
    `Hostname change with a real \`next dev\` (Next.js ${frameworks.next}, App Router, \`npm run dev\` as the dev server), from \`npm run test:frameworks\` at ${frameworks.at}: ` +
      'the tunnel server refuses the name and drops the client; seconds from the drop.',
    '',
    '| `--restart-on-url-change` | first start → synced | tunnel open (new URL) | endpoint synced | synced after the reopen | same pid | route has the new URL | goal (auto: ≤ 1 s after the reopen, same pid) |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |',
  );
  for (const p of frameworks.policies) {
    const verdict = p.policy === 'auto' ? (p.healAfterReopenSeconds <= 1 && p.samePid && p.routeSeesNewUrl ? 'met' : 'missed') : '—';
    lines.push(
      `| ${p.policy} | ${s(p.firstSyncSeconds)} | ${s(p.tunnelOpenSeconds)} | ${s(p.syncedSeconds)} | ${s(p.healAfterReopenSeconds)} | ${p.samePid ? 'yes' : 'no'} | ${p.routeSeesNewUrl ? 'yes' : 'no'} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

export async function runHealsBench(options: { root: string; isQuick: boolean; write: boolean; log(line: string): void }): Promise<void> {
  const machine = describeMachine();
  const rounds = options.isQuick ? 1 : 3;
  options.log(`\n8. Heal times: dropped tunnel, server restart, silent death (${rounds} each), sleep/wake (once)`);
  const result = await runTunnelHeals({ projectDir: join(options.root, 'heals'), rounds, sleepMs: options.isQuick ? 5_000 : 20_000, log: options.log });
  options.log('   other providers: one hostname change each against its fake');
  const providers = await runProviderHeals({ projectDir: join(options.root, 'providers'), rounds: options.isQuick ? 1 : 3, log: options.log });
  const loadAfter = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  const header =
    `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${machine.date}; ` +
    `load average (1 min) ${machine.loadAverage} at the start, ${loadAfter} at the end.`;
  const report = formatHealsReport(result, await readFrameworksResult(), header, providers);
  options.log(`\n${HEALS_SECTION_HEADING}\n\n${report}\n`);
  if (options.write && !options.isQuick) {
    await writeSection(BENCHMARKS_FILE, HEALS_SECTION_HEADING, report);
    options.log(`Written to ${BENCHMARKS_FILE} (section "${HEALS_SECTION_HEADING.slice(3)}").`);
  }
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-heals-'));
  try {
    await runHealsBench({ root, isQuick: args.has('--quick'), write: !args.has('--no-write'), log: (line) => console.log(line) });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const FLAGS: BenchFlags = { usage: 'node dist/bench/heals.js [--quick] [--no-write]', switches: ['--quick', '--no-write'], values: [] };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);
  main().catch((error: unknown) => {
    console.error('median-dev bench:heals failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}
