/**
 * The soak's world, all on 127.0.0.1: the loopback tunnel server and the
 * Median emulator in this process (the emulator reaches tunnel hostnames
 * through the tunnel server, anything else goes to a closed loopback port),
 * a temporary project folder with its env file and data dir, and the real
 * built CLI running `start` with the example route as its dev server.
 * Resolves once the endpoint is synced.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { deriveToolSecret } from '../../src/median/index.js';
import { startTunnelServer, type TunnelServer } from '../../src/tunnel-server/index.js';
import { benchChildEnv } from '../child-env.js';
import { soakCommandLine } from './soak-command-line.js';
import { spawnSoakDaemon, type DaemonEventLine, type SoakDaemon } from './soak-daemon.js';
import { CLI_ENTRY, REPO_ROOT } from '../cli-entry.js';

export { CLI_ENTRY } from '../cli-entry.js';
export const EXAMPLE_ROUTE = fileURLToPath(new URL('../../examples/tools-route/server.js', import.meta.url));
const OFFLINE_DNS_PRELOAD = new URL('./offline-dns.js', import.meta.url).href;
/** Says what the daemon's RSS is made of on SIGUSR2 (memory-probe.ts); inherited by the dev server, which nobody signals. */
const MEMORY_PROBE_PRELOAD = new URL('./memory-probe.js', import.meta.url).href;
export const ROUTE_PATH = '/api/median';

export interface SoakWorld {
  root: string;
  dataDir: string;
  /** Where the daemon's memory-probe.ts writes its readings. */
  memoryFile: string;
  tunnelServer: TunnelServer;
  emulator: Emulator;
  daemon: SoakDaemon;
  /** The tool signing secret derived from the emulator's key (what Median signs with). */
  secret: Uint8Array;
  /** The first `endpoint` `synced` event. */
  firstSync: DaemonEventLine;
  /** The CLI's command line as spawned (bin options, entry, arguments, NODE_OPTIONS), for the report. */
  commandLine: string;
  close(): Promise<void>;
  /** Synchronous last resort: kill every process and remove the folder. */
  killNow(): void;
}

/** A free port on 127.0.0.1 (taken from the OS, then released). */
export async function loopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no loopback port');
  return address.port;
}

const LOOPBACK_NAMES = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

export async function startSoakWorld(options: { startTimeoutMs: number; log(line: string): void; /** Node options before the bin's own (an A/B of a V8 flag). */ nodeArgs?: string[] }): Promise<SoakWorld> {
  for (const file of [CLI_ENTRY, EXAMPLE_ROUTE, fileURLToPath(OFFLINE_DNS_PRELOAD)]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run soak does).`);
  }
  const root = await realpath(await mkdtemp(join(tmpdir(), 'median-dev-soak-')));
  const cleanups: Array<() => Promise<void>> = [() => rm(root, { recursive: true, force: true })];
  let daemon: SoakDaemon | undefined;
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        options.log(`  clean-up step failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const killNow = (): void => {
    daemon?.killNow();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const tunnelServer = await startTunnelServer();
    cleanups.push(() => tunnelServer.close());
    const offline = { host: '127.0.0.1', port: await loopbackPort() };
    const emulator = await startEmulator({
      resolve: (hostname) => tunnelServer.resolve(hostname),
      // Any other name goes to a closed loopback port: nothing leaves the machine.
      fallbackResolve: (hostname) => (LOOPBACK_NAMES.test(hostname) ? undefined : offline),
    });
    cleanups.push(() => emulator.close());

    // The folder's name gives the subdomain the CLI asks for.
    const projectDir = join(root, 'soak-project');
    await mkdir(projectDir);
    const dataDir = join(projectDir, '.median-dev');
    const envFile = join(projectDir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${emulator.key}\n`);
    const routePort = await loopbackPort();
    const args = [
      'start', '--json', '--no-tui',
      '--port', '0',
      '--tunnel-host', tunnelServer.url,
      '--median-api', emulator.url,
      '--target', `http://127.0.0.1:${routePort}`,
      '--data-dir', dataDir,
      '--env-file', envFile,
      '--', process.execPath, EXAMPLE_ROUTE,
    ];
    const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : '';
    const nodeOptions = `${inherited}--import ${OFFLINE_DNS_PRELOAD} --import ${MEMORY_PROBE_PRELOAD}`;
    const memoryFile = join(root, 'memory.jsonl');
    daemon = spawnSoakDaemon({
      ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      cliEntry: CLI_ENTRY,
      // MEDIAN_DEV_SOAK_DAEMON_STDOUT=<file>: the CLI's other stdout lines (with daemon+--trace-gc in soak:floors, V8's GC trace) kept there.
      ...(process.env.MEDIAN_DEV_SOAK_DAEMON_STDOUT ? { otherLinesFile: process.env.MEDIAN_DEV_SOAK_DAEMON_STDOUT } : {}),
      args,
      keepCallIds: true,
      cwd: projectDir,
      env: benchChildEnv({
        PORT: String(routePort),
        HOST: '127.0.0.1',
        MEDIAN_API_URL: emulator.url,
        NODE_OPTIONS: nodeOptions,
        MEDIAN_DEV_SOAK_OFFLINE_DOMAIN: tunnelServer.domain,
        MEDIAN_DEV_SOAK_MEMORY_FILE: memoryFile,
      }),
    });
    const running = daemon;
    cleanups.push(async () => {
      const stopped = await running.stop();
      if (stopped.killed || stopped.strayGroups.length > 0) {
        options.log(`  the CLI ${stopped.killed ? 'had to be killed' : 'stopped'}; dev server groups killed afterwards: ${stopped.strayGroups.join(', ') || 'none'}`);
      }
    });
    const firstSync = await daemon.waitForEvent(0, (e) => e.event === 'endpoint' && e.action === 'synced', options.startTimeoutMs);
    const commandLine = soakCommandLine({ nodeArgv: daemon.nodeArgv, env: { NODE_OPTIONS: nodeOptions }, repoRoot: REPO_ROOT, tmpRoot: root, nodePath: process.execPath });
    return {
      root,
      dataDir,
      memoryFile,
      tunnelServer,
      emulator,
      daemon,
      secret: deriveToolSecret(emulator.key),
      firstSync,
      commandLine,
      close,
      killNow,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
