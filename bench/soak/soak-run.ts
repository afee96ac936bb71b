/**
 * One soak run: the world up, the steady load with its drops and store
 * checks, the daemon's memory, descriptors and CPU sampled along the way,
 * then everything stopped and the numbers gathered.
 */
import { isProcessAlive, isProcessGroupAlive } from '../../src/platform/index.js';
import { describeMachine, type MachineInfo } from '../machine.js';
import { CallLedger, CallState, StoreState } from './call-ledger.js';
import { createMedianSender } from './median-sender.js';
import { fdKinds, readProcessStats, type ProcessStats } from './process-stats.js';
import { readWhileIdle, type IdleReadings } from './idle-readings.js';
import { readMemory, type MemoryReading } from './memory-reading.js';
import type { SoakOptions } from './soak-options.js';
import type { StopOutcome } from './soak-daemon.js';
import { ROUTE_PATH, startSoakWorld, type SoakWorld } from './soak-world.js';
import { runSteadyLoad, type SteadyLoadResult } from './steady-load.js';
import { startStoreChecker } from './store-check.js';
import { createStoreAudit, type StoreAuditResult } from './store-audit.js';
import { createTunnelDrops, type DropResult } from './tunnel-drops.js';

export interface Sample extends ProcessStats {
  /** Fresh calls sent when the sample was taken. */
  sent: number;
  answered: number;
}

export type { IdleReadings } from './idle-readings.js';

export interface SoakResult {
  options: SoakOptions;
  machine: MachineInfo;
  commandLine: string;
  load: SteadyLoadResult;
  calls: { answered: number; givenUp: number; wellFormed: number; recorded: number; lost: number; uncheckable: number };
  /** Failed attempts that overlapped an outage / that did not, by reason. */
  refusedDuringOutage: { attempts: number; calls: number; byReason: Record<string, number> };
  failedOutsideOutage: { attempts: number; byReason: Record<string, number>; examples: string[] };
  latency: { p50: number; p90: number; p99: number; max: number };
  callEvents: number;
  answeredWithoutCallEvent: number;
  store: StoreAuditResult;
  drops: DropResult[];
  daemon: { start: ProcessStats; end: ProcessStats; idle: IdleReadings | undefined; samples: Sample[]; fdKindsStart: Record<string, number>; fdKindsEnd: Record<string, number>; errorEvents: string[]; stop: StopOutcome; leftRunning: number[];
    /** What the RSS is made of (memory-probe.ts), at start, at the end, and after the idle readings with a full GC. */
    memory: { start?: MemoryReading; end?: MemoryReading; idle?: MemoryReading } };
  soakCpuSeconds: number;
}

const SAMPLE_EVERY_MS = 5_000;
const MAX_ATTEMPTS = 20;
const CALL_TIMEOUT_MS = 10_000;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function runSoak(options: SoakOptions, context: { signal: AbortSignal; log(line: string): void; onWorld(world: SoakWorld): void; nodeArgs?: string[] }): Promise<SoakResult> {
  const { log } = context;
  const machine = describeMachine();
  const cpuAtStart = process.cpuUsage();
  const world = await startSoakWorld({ startTimeoutMs: 60_000, log, ...(context.nodeArgs ? { nodeArgs: context.nodeArgs } : {}) });
  context.onWorld(world);
  const { daemon, emulator } = world;
  const checker = startStoreChecker(world.dataDir);
  const sender = createMedianSender({ tunnelServerPort: world.tunnelServer.port, secret: world.secret, timeoutMs: CALL_TIMEOUT_MS, maxSockets: options.concurrency });
  let sampler: NodeJS.Timeout | undefined;
  try {
    const endpointId = world.firstSync.id as string;
    log(`  CLI pid ${daemon.pid}; endpoint ${endpointId} synced at ${String(world.firstSync.url)}`);
    const start = await readProcessStats(daemon.pid);
    const fdKindsStart = await fdKinds(daemon.pid);
    const memoryStart = await readMemory(daemon.pid, world.memoryFile);
    log(`  daemon at start: RSS ${start.rssMiB.toFixed(1)} MiB, ${start.openFds} open fds, ${start.cpuSeconds.toFixed(2)} s CPU`);

    const ledger = new CallLedger(options.calls);
    const audit = createStoreAudit(ledger, checker, log);
    const aborter = new AbortController();
    const onOuterAbort = (): void => aborter.abort(context.signal.reason);
    context.signal.addEventListener('abort', onOuterAbort, { once: true });
    const drops = createTunnelDrops({
      tunnelServer: world.tunnelServer,
      daemon,
      route: ROUTE_PATH,
      healTimeoutMs: 60_000,
      onHealFailed(error) {
        log(`  ${error.message}`);
        if (!daemon.isRunning()) aborter.abort(new Error(`The CLI exited: ${daemon.stderrTail().slice(-800)}`));
      },
      log,
    });

    // Median's view: the URL of this project's endpoint, read from the emulator (cached briefly).
    let cachedTarget: URL | undefined;
    let cachedAt = 0;
    const target = (): URL | undefined => {
      const now = Date.now();
      if (now - cachedAt > 20) {
        const endpoint = emulator.endpoints().find((e) => e.id === endpointId);
        cachedTarget = endpoint ? new URL(endpoint.url) : undefined;
        cachedAt = now;
      }
      return cachedTarget;
    };

    let sent = 0;
    let answered = 0;
    let wellFormed = 0;
    const samples: Sample[] = [];
    const sample = (): void => {
      const at = { sent, answered };
      readProcessStats(daemon.pid).then(
        (stats) => samples.push({ ...stats, ...at }),
        () => undefined, // the daemon is gone: the run fails elsewhere
      );
    };
    sampler = setInterval(sample, SAMPLE_EVERY_MS);
    sampler.unref();

    const refused = { attempts: 0, calls: new Set<number>(), byReason: {} as Record<string, number> };
    const outside = { attempts: 0, byReason: {} as Record<string, number>, examples: [] as string[] };
    log(`  sending ${options.calls.toLocaleString('en-US')} calls at ${options.rate}/s, ≤ ${options.concurrency} in flight, a drop every ${options.dropEvery.toLocaleString('en-US')}`);
    const load = await runSteadyLoad({
      ledger,
      rate: options.rate,
      concurrency: options.concurrency,
      maxAttempts: MAX_ATTEMPTS,
      sender,
      target,
      isOutage: () => drops.isOutage(),
      beforeFresh(index) {
        sent = index;
        if (index > 0 && index % options.dropEvery === 0) {
          sample();
          audit.checkInBackground();
          drops.drop(index);
        }
      },
      onAttempt({ index, startedAt, endedAt, outcome }) {
        if (outcome.kind === 'answered') {
          answered += 1;
          if (outcome.isWellFormed) wellFormed += 1;
          drops.noteAnswer(startedAt, endedAt);
          if (answered % 10_000 === 0) log(`  ${answered.toLocaleString('en-US')} answered`);
          return;
        }
        const reason = `${outcome.source}: ${outcome.reason}`;
        if (drops.claimFailure(startedAt, endedAt)) {
          refused.attempts += 1;
          refused.calls.add(index);
          refused.byReason[reason] = (refused.byReason[reason] ?? 0) + 1;
        } else {
          outside.attempts += 1;
          outside.byReason[reason] = (outside.byReason[reason] ?? 0) + 1;
          if (outside.examples.length < 10) outside.examples.push(`call ${index} at ${new Date(startedAt).toISOString()}: ${reason}`);
        }
      },
      signal: aborter.signal,
    });
    sent = options.calls;
    context.signal.removeEventListener('abort', onOuterAbort);
    log(`  every call answered or given up after ${((load.doneAt - load.firstSendAt) / 1000).toFixed(0)} s; checking the store`);
    await drops.idle();
    const store = await audit.finish();

    let answeredWithoutCallEvent = 0;
    const latencies: number[] = [];
    for (let i = 0; i < ledger.size; i += 1) {
      if (ledger.state[i] !== CallState.Answered) continue;
      latencies.push(ledger.latencyMs[i]!);
      if (!daemon.hasCallEvent(ledger.toolCallId(i))) answeredWithoutCallEvent += 1;
    }
    const sorted = Float64Array.from(latencies).sort();

    clearInterval(sampler);
    const end = await readProcessStats(daemon.pid);
    const fdKindsEnd = await fdKinds(daemon.pid);
    const memoryEnd = await readMemory(daemon.pid, world.memoryFile);
    const errorEvents = daemon.events().filter((e) => e.event === 'error' || (e.event === 'recording' && e.state === 'failing')).map((e) => `${e.event}: ${String(e.code ?? e.state)} ${String(e.message ?? '')}`);
    log(`  daemon at end: RSS ${end.rssMiB.toFixed(1)} MiB (peak ${end.peakRssMiB.toFixed(1)}), ${end.openFds} open fds, ${end.cpuSeconds.toFixed(2)} s CPU`);
    const idle = options.idleSeconds > 0 ? await readWhileIdle(daemon.pid, options.idleSeconds, context.signal) : undefined;
    const memoryIdle = await readMemory(daemon.pid, world.memoryFile, { fullGc: true });
    if (idle) log(`  daemon after ${idle.seconds} s idle: RSS ${idle.last.rssMiB.toFixed(1)} MiB (lowest ${Math.min(...idle.rssMiB).toFixed(1)}), ${(idle.last.cpuSeconds - end.cpuSeconds).toFixed(2)} s CPU meanwhile`);

    const childPids = daemon.childPids();
    const stop = await daemon.stop();
    await world.close();
    const leftRunning = [daemon.pid, ...childPids].filter((pid) => isProcessAlive(pid) || isProcessGroupAlive(pid));
    const cpu = process.cpuUsage(cpuAtStart);
    return {
      options,
      machine,
      commandLine: world.commandLine,
      load,
      calls: {
        answered: ledger.count(CallState.Answered),
        givenUp: ledger.count(CallState.GivenUp),
        wellFormed,
        recorded: ledger.countStore(StoreState.Recorded),
        lost: ledger.countStore(StoreState.Lost),
        uncheckable: ledger.countStore(StoreState.Unchecked),
      },
      refusedDuringOutage: { attempts: refused.attempts, calls: refused.calls.size, byReason: refused.byReason },
      failedOutsideOutage: outside,
      latency: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN },
      callEvents: daemon.callEvents(),
      answeredWithoutCallEvent,
      store,
      drops: drops.results(),
      daemon: {
        start, end, idle, samples, fdKindsStart, fdKindsEnd, errorEvents, stop, leftRunning,
        memory: { ...(memoryStart ? { start: memoryStart } : {}), ...(memoryEnd ? { end: memoryEnd } : {}), ...(memoryIdle ? { idle: memoryIdle } : {}) },
      },
      soakCpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    clearInterval(sampler);
    sender.close();
    await checker.close();
    await world.close();
  }
}
