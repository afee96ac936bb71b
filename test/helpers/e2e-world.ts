import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Emulator } from '../../src/emulator/index.js';
import type { MedianApiClient } from '../../src/median/index.js';
import type { TunnelServer } from '../../src/tunnel-server/index.js';
import { CLI_PATH, spawnCli, type SpawnedCli } from './cli-harness.js';
import { useEmulator } from './use-emulator.js';
import { useTeardown } from './use-teardown.js';
import { useTunnelServer } from './use-tunnel-server.js';
import { freeTestPort } from './free-test-port.js';

/** The compiled example route, started by `median-dev start` as its child command. */
export const EXAMPLE_ROUTE = fileURLToPath(new URL('../../dist/examples/tools-route/server.js', import.meta.url));

/** The example route's tools (examples/tools-route/demo-tools.ts). */
export const EXAMPLE_TOOLS = Object.freeze(['orderStatus', 'lookupCustomer', 'cancelOrder', 'refundOrder', 'chargeCard', 'slowReport', 'exportHistory']);

export type CliEvent = Record<string, unknown>;

/** A loopback port nothing listens on right now, outside the ephemeral range (see freeTestPort). */
export const freePort = freeTestPort;

/** A temp folder, removed when the test ends. Its real path (macOS /var → /private/var). */
export async function useTempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return useTeardown(dir, (d) => rm(d, { recursive: true, force: true }));
}

export interface E2eWorld {
  /** The project folder: the CLI's cwd (the tunnel subdomain is derived from it). */
  projectDir: string;
  dataDir: string;
  envFile: string;
  /** Where the example route (the child command) listens. */
  routePort: number;
  tunnelServer: TunnelServer;
  emulator: Emulator;
  /** An API client holding the emulator's first key. */
  api: MedianApiClient;
  clientWithKey(key: string): MedianApiClient;
  /** The `start` argv (without the child command) this world uses. */
  startArgs(extra?: string[], options?: { envFileFlag?: boolean }): string[];
  /**
   * Spawns the built `median-dev start --json …  -- node <example route>`,
   * killed when the test ends. `env` adds to (or, with undefined, removes
   * from) the CLI's environment, which the child inherits.
   */
  start(options?: { args?: string[]; env?: Record<string, string | undefined>; childCommand?: string[]; envFileFlag?: boolean; entry?: string }): SpawnedCli;
}

export interface E2eWorldOptions {
  /** The env file's text before the start; default `MEDIAN_KEY=<emulator key>\n`; null: no env file. */
  envFileText?: ((key: string) => string) | null;
  /** A project folder made beforehand (a framework app with its node_modules); default a fresh temp folder. */
  projectDir?: string;
  /** The loopback tunnel server's domain (a self-hosted server's, e.g. `lt.example.test`); default its own. */
  tunnelDomain?: string;
  /** The emulator's time limits; default the short test ones (a real dev server compiling needs Median's own 10 s). */
  emulatorLimits?: { syncTimeoutMs?: number; callTimeoutMs?: number };
}

/**
 * One e2e test's world: the emulator and the loopback tunnel server in this
 * process (the emulator reaches tunnel URLs through it), and a fresh project
 * folder holding the env file and the data dir. Everything stops when the test ends.
 */
export async function useE2eWorld(options: E2eWorldOptions = {}): Promise<E2eWorld> {
  if (!existsSync(CLI_PATH) || !existsSync(EXAMPLE_ROUTE)) {
    throw new Error(`The e2e tests spawn the built CLI: run \`npx tsc -p .\` first (${CLI_PATH} or ${EXAMPLE_ROUTE} is missing).`);
  }
  const tunnelServer = await useTunnelServer(options.tunnelDomain ? { domain: options.tunnelDomain } : {});
  const { emulator, client, clientWithKey } = await useEmulator({ resolve: (hostname) => tunnelServer.resolve(hostname), ...(options.emulatorLimits ? { limits: options.emulatorLimits } : {}) });
  const projectDir = options.projectDir ?? (await useTempDir('median-dev-e2e-'));
  const dataDir = join(projectDir, '.median-dev');
  const envFile = join(projectDir, '.env.local');
  if (options.envFileText !== null) {
    await writeFile(envFile, options.envFileText ? options.envFileText(emulator.key) : `MEDIAN_KEY=${emulator.key}\n`);
  }
  const routePort = await freePort();

  // Without the flag the env file is the default, `.env.local` in the project folder: the same file.
  const startArgs = (extra: string[] = [], flags: { envFileFlag?: boolean } = {}): string[] => [
    'start',
    '--json',
    '--no-tui',
    '--port',
    '0',
    '--tunnel-host',
    tunnelServer.url,
    '--median-api',
    emulator.url,
    '--target',
    `http://127.0.0.1:${routePort}`,
    '--data-dir',
    dataDir,
    ...(flags.envFileFlag === false ? [] : ['--env-file', envFile]),
    ...extra,
  ];

  return {
    projectDir,
    dataDir,
    envFile,
    routePort,
    tunnelServer,
    emulator,
    api: client,
    clientWithKey,
    startArgs,
    start(startOptions = {}) {
      const childCommand = startOptions.childCommand ?? [process.execPath, EXAMPLE_ROUTE];
      const args = startArgs(startOptions.args, { envFileFlag: startOptions.envFileFlag !== false });
      return spawnCli([...args, '--', ...childCommand], {
        cwd: projectDir,
        env: {
          PORT: String(routePort),
          HOST: '127.0.0.1',
          MEDIAN_API_URL: emulator.url,
          ...startOptions.env,
        },
        ...(startOptions.entry ? { entry: startOptions.entry } : {}),
      });
    },
  };
}

/** The `--json` events named `event` matching `fields`. */
export function eventsOf(cli: SpawnedCli, event: string, fields: Record<string, unknown> = {}): CliEvent[] {
  return cli.events().filter((e) => isEvent(e, event, fields));
}

/** Whether an event is `event` with every field of `fields`. */
export function isEvent(e: CliEvent, event: string, fields: Record<string, unknown> = {}): boolean {
  return e.event === event && Object.entries(fields).every(([k, v]) => e[k] === v);
}

/** Waits for an event matching `fields` among the events after the first `after` of the run. */
export async function waitForEventAfter(
  cli: SpawnedCli,
  after: number,
  event: string,
  fields: Record<string, unknown> = {},
  timeoutMs?: number,
): Promise<CliEvent> {
  const find = () => cli.events().slice(after).find((e) => isEvent(e, event, fields));
  await cli.waitForEvent(() => find() !== undefined, timeoutMs);
  return find()!;
}

/** The pids the child command ran with, in order (`child` events, state `running`). */
export function childPids(cli: SpawnedCli): number[] {
  return eventsOf(cli, 'child', { state: 'running' }).map((e) => e.pid as number);
}
