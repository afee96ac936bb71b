/**
 * The soak of a floor (floor-soak-process.ts: `record` or the stock client):
 * the same steady load as the daemon's soak (rate, calls, concurrency,
 * retries, a drop every n calls alternating forget and refuse-name), the
 * same readings of the process (RSS at start, along the way, at the end,
 * idle), on its own world: the loopback tunnel server in this process and
 * the example route as the dev server. No Median emulator: a floor has no
 * endpoint to sync, so the calls go to whatever hostname the tunnel server
 * has registered, and a drop is healed once a client is registered again
 * with its sockets connected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveToolSecret } from '../../src/median/index.js';
import { startTunnelServer } from '../../src/tunnel-server/index.js';
import { binNodeArgs } from '../bin-node-args.js';
import { benchChildEnv } from '../child-env.js';
import { CLI_ENTRY } from '../cli-entry.js';
import { CallLedger, CallState } from './call-ledger.js';
import type { FloorSoakSpec, FloorVariant } from './floor-soak-process.js';
import { createMedianSender } from './median-sender.js';
import { readMemory, type MemoryReading } from './memory-reading.js';
import { readProcessStats, type ProcessStats } from './process-stats.js';
import type { SoakOptions } from './soak-options.js';
import { readWhileIdle, type IdleReadings } from './idle-readings.js';
import { EXAMPLE_ROUTE, ROUTE_PATH, loopbackPort } from './soak-world.js';
import { runSteadyLoad, type SteadyLoadResult } from './steady-load.js';

const FLOOR_ENTRY = fileURLToPath(new URL('./floor-soak-process.js', import.meta.url));
export const MEMORY_PROBE = new URL('./memory-probe.js', import.meta.url).href;
const SAMPLE_EVERY_MS = 5_000;
const HEAL_TIMEOUT_MS = 60_000;

export interface FloorSoakResult {
  variant: FloorVariant;
  nodeArgs: string[];
  load: SteadyLoadResult;
  answered: number;
  givenUp: number;
  drops: Array<{ kind: 'forget' | 'refuse-name'; healMs: number | null }>;
  start: ProcessStats;
  end: ProcessStats;
  idle: IdleReadings | undefined;
  samples: Array<ProcessStats & { sent: number }>;
  memory: { start?: MemoryReading; end?: MemoryReading; idle?: MemoryReading };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const isOpen = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (isOpen) return;
    if (Date.now() > until) throw new Error(`Nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

export async function runFloorSoak(variant: FloorVariant, options: SoakOptions, context: { signal: AbortSignal; log(line: string): void; /** Node options before the bin's own. */ nodeArgs?: string[] }): Promise<FloorSoakResult> {
  const { log } = context;
  const root = await mkdtemp(join(tmpdir(), 'median-dev-soak-floor-'));
  const memoryFile = join(root, 'memory.jsonl');
  const medianKey = `median_key_${randomBytes(24).toString('hex')}`;
  const tunnelServer = await startTunnelServer();
  const children: ChildProcess[] = [];
  const sender = createMedianSender({ tunnelServerPort: tunnelServer.port, secret: deriveToolSecret(medianKey), timeoutMs: 10_000, maxSockets: options.concurrency });
  let sampler: NodeJS.Timeout | undefined;
  try {
    const routePort = await loopbackPort();
    const route = spawn(process.execPath, [EXAMPLE_ROUTE], { env: benchChildEnv({ PORT: String(routePort), HOST: '127.0.0.1', MEDIAN_KEY: medianKey }), stdio: 'ignore' });
    children.push(route);
    await waitForPort(routePort, 30_000);
    const spec: FloorSoakSpec = { variant, tunnelHost: tunnelServer.url, target: `http://127.0.0.1:${routePort}`, subdomain: 'soak-floor', medianKey };
    const nodeArgs = [...(context.nodeArgs ?? []), ...binNodeArgs(CLI_ENTRY)];
    const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : '';
    const floor = spawn(process.execPath, [...nodeArgs, FLOOR_ENTRY, JSON.stringify(spec)], {
      env: benchChildEnv({ NODE_OPTIONS: `${inherited}--import ${MEMORY_PROBE}`, MEDIAN_DEV_SOAK_MEMORY_FILE: memoryFile }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(floor);
    let stderr = '';
    floor.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4_000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The ${variant} floor was not ready within 30 s: ${stderr}`)), 30_000);
      floor.stdout!.setEncoding('utf8').on('data', (text: string) => {
        if (text.includes('"ready"')) {
          clearTimeout(timer);
          resolve();
        }
      });
      floor.once('exit', (code) => reject(new Error(`The ${variant} floor exited (code ${code}): ${stderr}`)));
    });
    const pid = floor.pid!;
    const start = await readProcessStats(pid);
    const memoryStart = await readMemory(pid, memoryFile);
    log(`  ${variant} floor pid ${pid} at start: RSS ${start.rssMiB.toFixed(1)} MiB`);

    // Where Median would send: the one registered client with its sockets up (cached briefly).
    let cached: URL | undefined;
    let cachedAt = 0;
    const target = (): URL | undefined => {
      const now = Date.now();
      if (now - cachedAt > 20) {
        const client = tunnelServer.clients().find((c) => c.sockets > 0);
        cached = client ? new URL(`${client.url}${ROUTE_PATH}`) : undefined;
        cachedAt = now;
      }
      return cached;
    };
    const drops: FloorSoakResult['drops'] = [];
    let healing: Promise<void> | undefined;
    const drop = (): void => {
      if (healing) return;
      const client = tunnelServer.clients()[0];
      if (!client) return;
      const kind = drops.length % 2 === 0 ? 'forget' : 'refuse-name';
      const result: FloorSoakResult['drops'][number] = { kind, healMs: null };
      drops.push(result);
      if (kind === 'refuse-name') tunnelServer.refuseName(client.id);
      const droppedAt = Date.now();
      tunnelServer.dropClient(client.id, { forget: true });
      cachedAt = 0;
      healing = (async () => {
        while (Date.now() - droppedAt < HEAL_TIMEOUT_MS && !context.signal.aborted) {
          if (tunnelServer.clients().some((c) => c.sockets > 0)) {
            result.healMs = Date.now() - droppedAt;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        cachedAt = 0;
        healing = undefined;
      })();
    };

    const ledger = new CallLedger(options.calls);
    let sent = 0;
    let answered = 0;
    const samples: FloorSoakResult['samples'] = [];
    const sample = (): void => {
      const at = sent;
      readProcessStats(pid).then((stats) => samples.push({ ...stats, sent: at }), () => undefined);
    };
    sampler = setInterval(sample, SAMPLE_EVERY_MS);
    sampler.unref();
    const load = await runSteadyLoad({
      ledger,
      rate: options.rate,
      concurrency: options.concurrency,
      maxAttempts: 20,
      sender,
      target,
      isOutage: () => healing !== undefined,
      beforeFresh(index) {
        sent = index;
        if (index > 0 && index % options.dropEvery === 0) {
          sample();
          drop();
        }
      },
      onAttempt({ outcome }) {
        if (outcome.kind === 'answered') answered += 1;
      },
      signal: context.signal,
    });
    clearInterval(sampler);
    await healing;
    const end = await readProcessStats(pid);
    const memoryEnd = await readMemory(pid, memoryFile);
    log(`  ${variant} floor at end: RSS ${end.rssMiB.toFixed(1)} MiB (peak ${end.peakRssMiB.toFixed(1)}), ${answered} answered`);
    const idle = options.idleSeconds > 0 ? await readWhileIdle(pid, options.idleSeconds, context.signal) : undefined;
    const memoryIdle = await readMemory(pid, memoryFile, { fullGc: true });
    if (idle) log(`  ${variant} floor after ${idle.seconds} s idle: RSS ${idle.last.rssMiB.toFixed(1)} MiB`);
    return {
      variant,
      nodeArgs,
      load,
      answered,
      givenUp: ledger.count(CallState.GivenUp),
      drops,
      start,
      end,
      idle,
      samples,
      memory: { ...(memoryStart ? { start: memoryStart } : {}), ...(memoryEnd ? { end: memoryEnd } : {}), ...(memoryIdle ? { idle: memoryIdle } : {}) },
    };
  } finally {
    clearInterval(sampler);
    sender.close();
    for (const child of children.reverse()) await stopChild(child, 10_000);
    await tunnelServer.close();
    await rm(root, { recursive: true, force: true });
  }
}
