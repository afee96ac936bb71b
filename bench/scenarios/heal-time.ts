/**
 * Scenario 6 (issue 4's heal target, ≤ 5 s): a dropped tunnel whose name is
 * refused on reconnect, healed end to end, as test/e2e/start/heal.test.ts
 * does it. In this process: the loopback tunnel server and the Median
 * emulator (the emulator reaches tunnel URLs through the tunnel server; any
 * other host goes to a closed loopback port). As a child: the built CLI,
 * `median-dev start --json`, with the example route as its dev server. Each
 * drop: the tunnel server forgets the client and gives its name away; timed
 * from the drop to the `endpoint synced` event for the new URL, with the
 * events' own clock for the steps between.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startTunnelServer, type TunnelServer } from '../../src/tunnel-server/index.js';
import { benchChildEnv } from '../child-env.js';
import { startDaemonProcess, type DaemonEventLine } from '../daemon-process.js';
import { CLI_ENTRY } from './calls-command.js';
import { findFreePort as freePort } from '../../src/shared/free-port.js';

const EXAMPLE_ROUTE = fileURLToPath(new URL('../../examples/tools-route/server.js', import.meta.url));
/** Issue 4: a dropped tunnel heals within this. */
export const HEAL_TARGET_SECONDS = 5;
const START_TIMEOUT_MS = 30_000;
const HEAL_TIMEOUT_MS = 30_000;

export interface HealStep {
  name: string;
  /** Seconds from the drop, by the event's own `at`; null when the event did not come. */
  seconds: number | null;
}

export interface HealRun {
  seconds: number;
  steps: HealStep[];
}

export interface HealTimeResult {
  /** One per daemon: the first drop after a calm start. */
  runs: HealRun[];
  /** The second drop of each daemon, right after the first healed (flapping: backoff by design). */
  flapping: HealRun[];
  /** The median run's seconds, and the slowest. */
  medianSeconds: number;
  maxSeconds: number;
  /** The e2e test's last result (test/e2e/.results/heal-time.json), if there is one. */
  e2e: { seconds: number; at: string } | undefined;
}


const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

async function readE2eResult(): Promise<HealTimeResult['e2e']> {
  const file = fileURLToPath(new URL('../../../test/e2e/.results/heal-time.json', import.meta.url));
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { seconds?: unknown; at?: unknown };
    return typeof parsed.seconds === 'number' && typeof parsed.at === 'string' ? { seconds: parsed.seconds, at: parsed.at } : undefined;
  } catch {
    return undefined; // no e2e run yet (or an unreadable file): the bench's own runs stand alone
  }
}

function isEvent(e: DaemonEventLine, event: string, fields: Record<string, unknown> = {}): boolean {
  return e.event === event && Object.entries(fields).every(([k, v]) => e[k] === v);
}

/**
 * One world (tunnel server, emulator: a fresh Median org, so no tool name
 * clashes with another run) and one daemon: start, wait for the synced
 * endpoint, then `drops` drops in a row.
 */
async function healOneDaemon(projectDir: string, drops: number): Promise<HealRun[]> {
  const closedPort = await freePort();
  let tunnelServer: TunnelServer | undefined;
  let emulator: Emulator | undefined;
  try {
    tunnelServer = await startTunnelServer();
    const tunnels = tunnelServer;
    emulator = await startEmulator({
      resolve: (hostname) => tunnels.resolve(hostname),
      // Nothing leaves the machine: other hosts get a refused loopback port.
      fallbackResolve: (hostname) => (LOOPBACK.test(hostname) ? undefined : { host: '127.0.0.1', port: closedPort }),
      limits: { syncTimeoutMs: 2_000, callTimeoutMs: 2_000, diagnosticsTimeoutMs: 2_000 },
    });
    return await dropAndHeal(projectDir, drops, tunnels, emulator);
  } finally {
    await emulator?.close();
    await tunnelServer?.close();
  }
}

async function dropAndHeal(projectDir: string, drops: number, tunnels: TunnelServer, emulator: Emulator): Promise<HealRun[]> {
  await mkdir(projectDir, { recursive: true });
  const envFile = join(projectDir, '.env.local');
  await writeFile(envFile, `MEDIAN_KEY=${emulator.key}\n`, { mode: 0o600 });
  const routePort = await freePort();
  const daemon = await startDaemonProcess({
    cliEntry: CLI_ENTRY,
    args: [
      'start',
      '--json',
      '--no-tui',
      '--port',
      '0',
      '--tunnel-host',
      tunnels.url,
      '--median-api',
      emulator.url,
      '--target',
      `http://127.0.0.1:${routePort}`,
      '--data-dir',
      join(projectDir, '.median-dev'),
      '--env-file',
      envFile,
      '--',
      process.execPath,
      EXAMPLE_ROUTE,
    ],
    cwd: projectDir,
    env: benchChildEnv({ PORT: String(routePort), HOST: '127.0.0.1', MEDIAN_API_URL: emulator.url }),
    startTimeoutMs: START_TIMEOUT_MS,
    maxOtherEvents: 5_000,
  });
  try {
    const synced = (after: number, notUrl?: string) =>
      daemon
        .waitForEvent((e) => daemon.otherEvents().indexOf(e) >= after && isEvent(e, 'endpoint', { action: 'synced' }) && e.url !== notUrl, HEAL_TIMEOUT_MS)
        .catch((error: unknown) => {
          const last = daemon
            .otherEvents()
            .slice(after)
            .filter((e) => e.event !== 'output')
            .slice(-5)
            .map((e) => `${e.event} ${String(e.state ?? e.action ?? '')} ${String(e.error ?? e.message ?? '')}`.trim());
          throw new Error(`${error instanceof Error ? error.message : String(error)} Last events: ${last.join(' | ')}`);
        });
    let current = await synced(0);
    const runs: HealRun[] = [];
    for (let drop = 0; drop < drops; drop += 1) {
      const oldUrl = current.url as string;
      const name = new URL(oldUrl).hostname.split('.')[0]!;
      const mark = daemon.otherEvents().length;
      const droppedAt = Date.now();
      // The server loses the client and gives its name away.
      tunnels.refuseName(name);
      tunnels.dropClient(name, { forget: true });
      current = await synced(mark, oldUrl);
      const seconds = (Date.now() - droppedAt) / 1000;
      const after = daemon.otherEvents().slice(mark);
      const step = (stepName: string, event: string, fields: Record<string, unknown> = {}): HealStep => {
        const found = after.find((e) => isEvent(e, event, fields));
        return { name: stepName, seconds: found ? (Date.parse(found.at as string) - droppedAt) / 1000 : null };
      };
      runs.push({
        seconds,
        steps: [
          step('tunnel down', 'tunnel', { state: 'down' }),
          step('tunnel open (new URL)', 'tunnel', { state: 'open' }),
          step('env file written', 'tools-url'),
          step('dev server restarted', 'child', { state: 'running' }),
          step('endpoint changed', 'endpoint', { action: 'changed' }),
          step('endpoint synced', 'endpoint', { action: 'synced' }),
        ],
      });
    }
    return runs;
  } finally {
    await daemon.stop(10_000);
  }
}

/**
 * `daemons` fresh daemons, each dropped once after a calm start (the heal
 * the target is about), then once more right after healing: a tunnel lost
 * again within a minute is flapping, and the reopen backs off on purpose.
 */
export async function runHealTime(options: { projectDir: string; daemons: number; log(line: string): void }): Promise<HealTimeResult> {
  const runs: HealRun[] = [];
  const flapping: HealRun[] = [];
  for (let i = 0; i < options.daemons; i += 1) {
    const [calm, again] = await healOneDaemon(join(options.projectDir, `heal-${i + 1}`), 2);
    runs.push(calm!);
    flapping.push(again!);
    options.log(`   daemon ${i + 1}: healed in ${calm!.seconds.toFixed(2)} s; dropped again at once: ${again!.seconds.toFixed(2)} s`);
  }
  const sorted = runs.map((r) => r.seconds).sort((a, b) => a - b);
  return {
    runs,
    flapping,
    medianSeconds: sorted[Math.floor((sorted.length - 1) / 2)]!,
    maxSeconds: sorted[sorted.length - 1]!,
    e2e: await readE2eResult(),
  };
}
