/**
 * Scenario 8b: the heal for each tunnel provider that has a fake here, end to
 * end through the built CLI (`median-dev start --json --tunnel <provider>`,
 * the example route as its dev server) and the Median emulator in this
 * process. The fakes are the tests' (each says which real behaviour it
 * copies): a fake `cloudflared` on PATH, the real OpenSSH client against a
 * loopback server playing localhost.run, a fake ngrok agent API.
 *
 * - cloudflared: cloudflared killed (a new one gets a new trycloudflare.com name);
 * - ssh: the server drops the connection (the reconnect gets a new name);
 * - ngrok agent: the agent now serves the proxy under another URL.
 * Timed from the fault to `endpoint synced` at the new URL.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { findExecutable } from '../../src/platform/index.js';
import { findFreePort } from '../../src/shared/free-port.js';
import { startFakeNgrokAgent } from '../../test/helpers/use-fake-ngrok-agent.js';
import { startSshTunnelServer } from '../../test/helpers/use-ssh-tunnel-server.js';
import { benchChildEnv } from '../child-env.js';
import { startDaemonProcess, type DaemonEventLine, type DaemonProcess } from '../daemon-process.js';
import { CLI_ENTRY } from './calls-command.js';

const EXAMPLE_ROUTE = fileURLToPath(new URL('../../examples/tools-route/server.js', import.meta.url));
/** The fake cloudflared is a plain script beside the test helpers' sources (dist has no copy). */
const FAKES_DIR = fileURLToPath(new URL('../../../test/helpers/fakes', import.meta.url));
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

export type ProviderKind = 'cloudflared' | 'ssh' | 'ngrok-agent';

export interface ProviderHeal {
  provider: ProviderKind;
  /** Fault → `tunnel open` at the new URL, → `endpoint synced` there, seconds. */
  openSeconds: number | null;
  syncedSeconds: number;
}

function isEvent(e: DaemonEventLine, event: string, fields: Record<string, unknown> = {}): boolean {
  return e.event === event && Object.entries(fields).every(([k, v]) => e[k] === v);
}

/** A provider's world: where its public names go, the start flags, the environment, and the fault. */
interface ProviderWorld {
  domain: string;
  edgePort: number;
  args: string[];
  env: Record<string, string>;
  fault(daemon: DaemonProcess): Promise<void>;
  close(): Promise<void>;
}

async function providerWorld(provider: ProviderKind, dir: string, proxyPort: number): Promise<ProviderWorld> {
  switch (provider) {
    case 'cloudflared': {
      const edgePort = await findFreePort();
      const pidFile = join(dir, 'cloudflared.pids');
      await writeFile(pidFile, '');
      return {
        domain: 'trycloudflare.com',
        edgePort,
        args: ['--tunnel', 'cloudflared'],
        env: { PATH: `${FAKES_DIR}:${process.env.PATH}`, FAKE_CLOUDFLARED_EDGE_PORT: String(edgePort), FAKE_CLOUDFLARED_PIDS: pidFile },
        async fault() {
          const pids = (await readFile(pidFile, 'utf8')).split('\n').filter(Boolean).map(Number);
          process.kill(pids.at(-1)!, 'SIGKILL');
        },
        close: async () => undefined,
      };
    }
    case 'ssh': {
      const server = await startSshTunnelServer(dir);
      const options = [`UserKnownHostsFile=${server.knownHostsFile}`, 'StrictHostKeyChecking=yes', 'IdentitiesOnly=yes', 'IdentityFile=/dev/null'];
      return {
        domain: 'lhr.life',
        edgePort: server.edgePort,
        args: ['--tunnel', 'ssh', '--ssh', server.destination, ...options.flatMap((option) => ['--ssh-option', option])],
        env: {},
        fault: async () => server.dropAll(),
        close: () => server.close(),
      };
    }
    case 'ngrok-agent': {
      const agent = await startFakeNgrokAgent();
      agent.serve([{ url: 'https://first0.ngrok-free.app', upstream: `localhost:${proxyPort}` }]);
      return {
        domain: 'ngrok-free.app',
        edgePort: agent.edgePort,
        args: ['--tunnel', 'ngrok', '--attach', '--ngrok-api', agent.apiUrl],
        env: { MEDIAN_DEV_NGROK_FOLLOW_MS: '1000' },
        fault: async () => agent.serve([{ url: `https://moved${Date.now() % 1000}.ngrok-free.app`, upstream: `localhost:${proxyPort}` }]),
        close: () => agent.close(),
      };
    }
    default: {
      const never: never = provider;
      throw new Error(`unknown provider ${String(never)}`);
    }
  }
}

async function measureOnce(provider: ProviderKind, projectDir: string): Promise<ProviderHeal> {
  await mkdir(projectDir, { recursive: true });
  const proxyPort = await findFreePort();
  const world = await providerWorld(provider, projectDir, proxyPort);
  const closedPort = await findFreePort();
  const emulator: Emulator = await startEmulator({
    resolve: (hostname) => (hostname.endsWith(`.${world.domain}`) ? { host: '127.0.0.1', port: world.edgePort } : undefined),
    fallbackResolve: (hostname) => (LOOPBACK.test(hostname) ? undefined : { host: '127.0.0.1', port: closedPort }),
    limits: { syncTimeoutMs: 2_000, callTimeoutMs: 2_000, diagnosticsTimeoutMs: 2_000 },
  });
  let daemon: DaemonProcess | undefined;
  try {
    const envFile = join(projectDir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${emulator.key}\n`, { mode: 0o600 });
    const routePort = await findFreePort();
    daemon = await startDaemonProcess({
      cliEntry: CLI_ENTRY,
      args: [
        'start', '--json', '--no-tui', '--port', String(proxyPort), '--median-api', emulator.url, '--target', `http://127.0.0.1:${routePort}`,
        '--data-dir', join(projectDir, '.median-dev'), '--env-file', envFile, ...world.args, '--', process.execPath, EXAMPLE_ROUTE,
      ],
      cwd: projectDir,
      env: benchChildEnv({ PORT: String(routePort), HOST: '127.0.0.1', MEDIAN_API_URL: emulator.url, MEDIAN_DEV_TUNNEL_PROBE_VIA: `http://127.0.0.1:${world.edgePort}`, ...world.env }),
      startTimeoutMs: 30_000,
      maxOtherEvents: 5_000,
    });
    const d = daemon;
    const first = await d.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    await d.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }), 30_000);
    const mark = d.otherEvents().length;
    const from = Date.now();
    await world.fault(d);
    const since = (e: DaemonEventLine) => d.otherEvents().indexOf(e) >= mark;
    const synced = await d.waitForEvent((e) => since(e) && isEvent(e, 'endpoint', { action: 'synced' }) && e.url !== first.url, 30_000);
    const opened = d.otherEvents().slice(mark).find((e) => isEvent(e, 'tunnel', { state: 'open' }));
    const seconds = (e: DaemonEventLine | undefined) => (e ? (Date.parse(e.at as string) - from) / 1000 : null);
    return { provider, openSeconds: seconds(opened), syncedSeconds: seconds(synced)! };
  } finally {
    await daemon?.stop(10_000);
    await emulator.close();
    await world.close();
  }
}

/** `rounds` hostname changes for each provider with a fake (ssh only when the OpenSSH client is here). */
export async function runProviderHeals(options: { projectDir: string; rounds: number; log(line: string): void }): Promise<ProviderHeal[]> {
  const providers: ProviderKind[] = ['cloudflared', ...(findExecutable('ssh', process.env) ? (['ssh'] as const) : []), 'ngrok-agent'];
  const runs: ProviderHeal[] = [];
  for (const provider of providers) {
    for (let round = 0; round < options.rounds; round += 1) {
      const run = await measureOnce(provider, join(options.projectDir, `${provider}-${round + 1}`));
      runs.push(run);
      options.log(`   ${provider}: synced at the new URL ${run.syncedSeconds.toFixed(2)} s (open ${run.openSeconds?.toFixed(2) ?? '—'} s)`);
    }
  }
  return runs;
}
