/**
 * Scenario 8: how long the tunnel takes to heal, for each way it fails in the
 * real world, end to end through the built CLI (`median-dev start --json`,
 * the example route as its dev server), the loopback tunnel server and the
 * Median emulator in this process. Each fault on a fresh daemon after its
 * endpoint synced; timed from the fault (sleep/wake: from the wake) to the
 * `endpoint synced` event, with the events' own clock for the steps between.
 *
 * - dropped: the server drops and forgets the client (it registers again under its name);
 * - server restart: the server process goes away and a new one (knowing no
 *   client) listens on the same port at once;
 * - silent death: the server keeps the sockets open and stops forwarding;
 * - sleep/wake: daemon and dev server SIGSTOPped while the server forgets
 *   the client, then SIGCONT (POSIX only).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { startTunnelServer, type TunnelServer } from '../../src/tunnel-server/index.js';
import { benchChildEnv } from '../child-env.js';
import { startDaemonProcess, type DaemonEventLine, type DaemonProcess } from '../daemon-process.js';
import { CLI_ENTRY } from './calls-command.js';

const EXAMPLE_ROUTE = fileURLToPath(new URL('../../examples/tools-route/server.js', import.meta.url));
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

export type FaultKind = 'dropped' | 'server-restart' | 'silent-death' | 'sleep-wake';

export interface HealMeasurement {
  kind: FaultKind;
  /** Fault (or wake) → `tunnel down`, → `tunnel open`, → `endpoint synced`, seconds; null when the event did not come. */
  downSeconds: number | null;
  openSeconds: number | null;
  syncedSeconds: number;
  /** `tunnel down`'s reason, up to its first colon. */
  reason: string | null;
}

/** The world one daemon runs in; the tunnel server may be replaced (server restart). */
export interface World {
  tunnels: TunnelServer;
  emulator: Emulator;
}

export function isEvent(e: DaemonEventLine, event: string, fields: Record<string, unknown> = {}): boolean {
  return e.event === event && Object.entries(fields).every(([k, v]) => e[k] === v);
}

/** How long a simulated lid stays closed (SIGSTOP): a duration, not a wait for something. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startWorld(): Promise<World> {
  const closedPort = await findFreePort();
  const tunnels = await startTunnelServer();
  const world = { tunnels } as World;
  world.emulator = await startEmulator({
    // Through whichever tunnel server listens now (a restarted one is a new object on the same port).
    resolve: (hostname) => world.tunnels.resolve(hostname),
    fallbackResolve: (hostname) => (LOOPBACK.test(hostname) ? undefined : { host: '127.0.0.1', port: closedPort }),
    limits: { syncTimeoutMs: 2_000, callTimeoutMs: 2_000, diagnosticsTimeoutMs: 2_000 },
  });
  return world;
}

export async function startDaemon(world: World, projectDir: string, tunnelHost = world.tunnels.url): Promise<DaemonProcess> {
  await mkdir(projectDir, { recursive: true });
  const envFile = join(projectDir, '.env.local');
  await writeFile(envFile, `MEDIAN_KEY=${world.emulator.key}\n`, { mode: 0o600 });
  const routePort = await findFreePort();
  const args = ['start', '--json', '--no-tui', '--port', '0', '--tunnel-host', tunnelHost, '--median-api', world.emulator.url];
  args.push('--target', `http://127.0.0.1:${routePort}`, '--data-dir', join(projectDir, '.median-dev'), '--env-file', envFile, '--', process.execPath, EXAMPLE_ROUTE);
  return startDaemonProcess({
    cliEntry: CLI_ENTRY,
    args,
    cwd: projectDir,
    // The probe reaches the .test public hostnames (no DNS) through the --tunnel-host by itself.
    env: benchChildEnv({ PORT: String(routePort), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url }),
    startTimeoutMs: 30_000,
    maxOtherEvents: 5_000,
  });
}

/** Does the fault; resolves with the moment the clock starts (the fault, or the wake). */
async function inflict(kind: FaultKind, world: World, daemon: DaemonProcess, name: string, sleepMs: number): Promise<number> {
  switch (kind) {
    case 'dropped':
      world.tunnels.dropClient(name, { forget: true });
      return Date.now();
    case 'server-restart': {
      const { port, domain } = world.tunnels;
      const at = Date.now();
      await world.tunnels.close();
      world.tunnels = await startTunnelServer({ port, domain });
      return at;
    }
    case 'silent-death':
      world.tunnels.setForwarding(name, false);
      return Date.now();
    case 'sleep-wake': {
      const childPid = daemon.otherEvents().find((e) => isEvent(e, 'child', { state: 'running' }))?.pid as number | undefined;
      const pids = [daemon.pid, ...(childPid ? [childPid] : [])];
      for (const pid of pids) process.kill(pid, 'SIGSTOP');
      try {
        world.tunnels.forgetClientKeepingSockets(name);
        await sleep(sleepMs);
      } finally {
        for (const pid of pids.reverse()) process.kill(pid, 'SIGCONT');
      }
      return Date.now();
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown fault ${String(never)}`);
    }
  }
}

/** One fresh world and daemon, one fault, healed. */
async function measureOnce(kind: FaultKind, projectDir: string, sleepMs: number): Promise<HealMeasurement> {
  const world = await startWorld();
  let daemon: DaemonProcess | undefined;
  try {
    daemon = await startDaemon(world, projectDir);
    const d = daemon;
    const first = await d.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    const url = first.url as string;
    const name = new URL(url).hostname.split('.')[0]!;
    // Calm first: the start's own heal is over (its `heal` `done` follows the sync).
    await d.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }), 30_000);
    const mark = d.otherEvents().length;
    const from = await inflict(kind, world, d, name, sleepMs);
    const since = (e: DaemonEventLine) => d.otherEvents().indexOf(e) >= mark;
    const synced = await d.waitForEvent((e) => since(e) && isEvent(e, 'endpoint', { action: 'synced', url }), 60_000); // a silent death is noticed within 30 s, then reopened and synced
    const after = d.otherEvents().slice(mark);
    const seconds = (e: DaemonEventLine | undefined) => (e ? (Date.parse(e.at as string) - from) / 1000 : null);
    const down = after.find((e) => isEvent(e, 'tunnel', { state: 'down' }));
    return {
      kind,
      downSeconds: seconds(down),
      openSeconds: seconds(after.find((e) => isEvent(e, 'tunnel', { state: 'open' }))),
      syncedSeconds: seconds(synced)!,
      reason: typeof down?.reason === 'string' ? (down.reason.split(':')[0] ?? null) : null,
    };
  } finally {
    await daemon?.stop(10_000);
    await world.emulator.close();
    await world.tunnels.close();
  }
}

export interface TunnelHealsResult {
  runs: HealMeasurement[];
  sleepSeconds: number;
}

/** `rounds` of each fault (sleep/wake once: it sleeps `sleepMs`), each on a fresh daemon. */
export async function runTunnelHeals(options: { projectDir: string; rounds: number; sleepMs: number; log(line: string): void }): Promise<TunnelHealsResult> {
  const kinds: FaultKind[] = ['dropped', 'server-restart', 'silent-death', ...(process.platform === 'win32' ? [] : (['sleep-wake'] as const))];
  const runs: HealMeasurement[] = [];
  for (const kind of kinds) {
    const rounds = kind === 'sleep-wake' ? 1 : options.rounds;
    for (let round = 0; round < rounds; round += 1) {
      const run = await measureOnce(kind, join(options.projectDir, `${kind}-${round + 1}`), options.sleepMs);
      runs.push(run);
      options.log(`   ${kind}: synced ${run.syncedSeconds.toFixed(2)} s (down ${run.downSeconds?.toFixed(2) ?? '—'} s ${run.reason ?? ''}, open ${run.openSeconds?.toFixed(2) ?? '—'} s)`);
    }
  }
  return { runs, sleepSeconds: options.sleepMs / 1000 };
}
