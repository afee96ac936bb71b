/**
 * The world of the tunnel bench, all on 127.0.0.1, in the default
 * configuration: a localtunnel server (ours in its own process, in one of its
 * socket-reuse modes, or one already running at `--tunnel-host`), the Median
 * emulator in this process, a temporary project, and side by side
 *   - the real built CLI, `median-dev start --json --no-tui` (tunnel,
 *     inspector and the example route as its dev server, all on), and
 *   - the stock `localtunnel` client (its own process) tunnelling straight to
 *     that same dev server, as users run `lt --port`.
 * Both tunnels are registered on the same tunnel server; a request reaches
 * either by its Host header.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { deriveToolSecret } from '../../src/median/index.js';
import type { SocketReuse } from '../../src/tunnel-server/index.js';
import { binNodeArgs } from '../bin-node-args.js';
import { benchChildEnv } from '../child-env.js';
import { forkServer, type ServerHandle } from '../server-handle.js';
import { FLOOR_MODES, type FloorMode } from '../floor-tunnel.js';
import { spawnSoakDaemon, type SoakDaemon } from '../soak/soak-daemon.js';
import { CLI_ENTRY, EXAMPLE_ROUTE, ROUTE_PATH, loopbackPort } from '../soak/soak-world.js';

/**
 * Who reads a daemon's `call` lines (~260 characters each; 250 a second at
 * the steady rate, ~3,000 in the closed loop): a relay process
 * (bench/soak/call-line-relay.ts), as a user's terminal or `jq` reads them in
 * a process of its own, or this process, which also times every side's
 * calls. The stock client and the floors print nothing, so with `here` only
 * the daemon's calls are timed by a process busy reading its lines. Two
 * 6-round looks with `bench:parts --variant-read-here` did not settle what
 * that costs the daemon's p99 (−0.49 and +0.13 ms, median, relayed against
 * read here); the relay is the default because it times every side alike.
 */
export type CallLineReader = 'relay' | 'here';

/** A daemon beside the first: extra `start` flags, another build's bin, who reads its `call` lines (default `relay`). */
export interface TunnelVariant {
  args: string[];
  cliEntry?: string;
  callLines?: CallLineReader;
}

/** Which tunnel server the world runs against. */
export type TunnelServerKind = { kind: 'loopback'; socketReuse: SocketReuse } | { kind: 'external'; url: string; domain: string };

export interface TunnelWorld {
  /** Where requests go (the tunnel server's own port). */
  tunnelServerUrl: string;
  daemon: SoakDaemon;
  /** Host header of the daemon's tunnel, and of the stock client's. */
  daemonHost: string;
  stockHost: string;
  stock: ServerHandle;
  /**
   * Starts the stock client again, same subdomain, after the tunnel server
   * forgot it (all its sockets closed at once, e.g. when the dev server's
   * keep-alive timeout closed their local ends while it sat idle): the
   * localtunnel 2.0.2 client never registers again by itself, and answers
   * 404 from then on.
   */
  restartStock(): Promise<void>;
  /** The floors (bench/floor-tunnel.ts), each its own process on the same tunnel server: their Host headers and handles. */
  floors: Partial<Record<FloorMode, { host: string; handle: ServerHandle }>>;
  /** More daemons on the same tunnel server, each started with its variant's extra `start` flags or from another build's bin (its own project, dev server and emulator org, same key). */
  variants: Record<string, { host: string; daemon: SoakDaemon }>;
  /** The tool signing secret the daemon checks (derived from the emulator's key). */
  secret: Uint8Array;
  routePath: string;
  close(): Promise<void>;
}

/** The Host header that reaches a tunnel: its id (the public URL's first label) under the server's domain. */
function hostOf(publicUrl: string, domain: string): string {
  return `${new URL(publicUrl).hostname.split('.')[0]}.${domain}`;
}

export async function startTunnelWorld(options: {
  server: TunnelServerKind;
  tag: string;
  startTimeoutMs: number;
  /** The floors started beside the daemon (default all of FLOOR_MODES). */
  floors?: readonly FloorMode[];
  /** Node's own options for the daemon (`--cpu-prof`, `--heapsnapshot-signal=…`). */
  daemonNodeArgs?: string[];
  /** Where the first daemon's stdout lines that are no event go (V8's `--trace-gc` lines, with `daemonNodeArgs`). */
  daemonOtherLinesFile?: string;
  /** More daemons beside the first: name → extra `start` flags (e.g. `--no-inspector`) and, with `cliEntry`, another build's bin; for a part's cost measured against the daemon as it is. */
  variants?: Record<string, TunnelVariant>;
  /** Who reads the first daemon's `call` lines (default `relay`). */
  daemonCallLines?: CallLineReader;
}): Promise<TunnelWorld> {
  for (const file of [CLI_ENTRY, EXAMPLE_ROUTE]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first.`);
  }
  const root = await realpath(await mkdtemp(join(tmpdir(), 'median-dev-bench-tunnel-')));
  const cleanups: Array<() => Promise<void>> = [() => rm(root, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    let tunnelServerUrl: string;
    let domain: string;
    if (options.server.kind === 'loopback') {
      domain = 'lt.median.test';
      const server = await forkServer({ role: 'tunnel-server', socketReuse: options.server.socketReuse, domain });
      cleanups.push(() => server.stop());
      tunnelServerUrl = server.url;
    } else {
      // Requests go to its port on 127.0.0.1 (the bench sends nowhere else); the clients get the URL as given (`localhost` makes the real server announce `<id>.localhost:<port>`, a valid URL).
      tunnelServerUrl = options.server.url;
      domain = options.server.domain;
    }
    const tunnelPort = Number(new URL(tunnelServerUrl).port);
    const offline = { host: '127.0.0.1', port: await loopbackPort() };
    const startOrg = async (key?: string): Promise<Emulator> => {
      const started = await startEmulator({
        ...(key ? { key } : {}),
        resolve: (hostname) => (hostname === domain || hostname.endsWith(`.${domain}`) ? { host: '127.0.0.1', port: tunnelPort } : undefined),
        fallbackResolve: () => offline,
      });
      cleanups.push(() => started.close());
      return started;
    };
    const emulator = await startOrg();

    /** A daemon in its own project (the folder's name is the subdomain the CLI asks for) with its own dev server, synced once open. */
    const startDaemon = async (
      name: string,
      extraArgs: string[],
      nodeArgs: string[] | undefined,
      org: Emulator,
      more: { otherLinesFile?: string; cliEntry?: string; callLines?: CallLineReader } = {},
    ): Promise<{ daemon: SoakDaemon; host: string; routePort: number }> => {
      const projectDir = join(root, name);
      await mkdir(projectDir);
      const envFile = join(projectDir, '.env.local');
      await writeFile(envFile, `MEDIAN_KEY=${org.key}\n`);
      const routePort = await loopbackPort();
      const daemon = spawnSoakDaemon({
        cliEntry: more.cliEntry ?? CLI_ENTRY,
        args: [
          'start', '--json', '--no-tui', '--port', '0',
          ...extraArgs,
          '--tunnel-host', tunnelServerUrl,
          '--median-api', org.url,
          '--target', `http://127.0.0.1:${routePort}`,
          '--data-dir', join(projectDir, '.median-dev'),
          '--env-file', envFile,
          '--', process.execPath, EXAMPLE_ROUTE,
        ],
        cwd: projectDir,
        env: benchChildEnv({ PORT: String(routePort), HOST: '127.0.0.1', MEDIAN_API_URL: org.url }),
        ...(nodeArgs ? { nodeArgs } : {}),
        ...(more.otherLinesFile ? { otherLinesFile: more.otherLinesFile } : {}),
        relayCallLines: (more.callLines ?? 'relay') === 'relay',
      });
      cleanups.push(async () => void (await daemon.stop()));
      const opened = await daemon.waitForEvent(0, (e) => e.event === 'tunnel' && e.state === 'open', options.startTimeoutMs);
      // The real server announces `<id>.<the registration's Host>` (a URL that reaches nothing here), so Median cannot sync it; ours can.
      if (options.server.kind === 'loopback') await daemon.waitForEvent(0, (e) => e.event === 'endpoint' && e.action === 'synced', options.startTimeoutMs);
      return { daemon, host: hostOf(String(opened.url), domain), routePort };
    };
    const main = await startDaemon(`bench-${options.tag}`, [], options.daemonNodeArgs, emulator, {
      ...(options.daemonOtherLinesFile ? { otherLinesFile: options.daemonOtherLinesFile } : {}),
      ...(options.daemonCallLines ? { callLines: options.daemonCallLines } : {}),
    });
    const daemon = main.daemon;
    // The stock client and the floors go to the first daemon's dev server.
    const routePort = main.routePort;
    const variants: TunnelWorld['variants'] = {};
    for (const [name, variant] of Object.entries(options.variants ?? {})) {
      // An org of its own (its own emulator, the same key, so the same signing secret): in one org the variant's tools would clash with the daemon's, and its endpoint never sync.
      const started = await startDaemon(`variant-${name}-${options.tag}`, variant.args, options.daemonNodeArgs, await startOrg(emulator.key), {
        ...(variant.cliEntry ? { cliEntry: variant.cliEntry } : {}),
        ...(variant.callLines ? { callLines: variant.callLines } : {}),
      });
      variants[name] = { daemon: started.daemon, host: started.host };
    }
    const stock = await forkServer({ role: 'stock-tunnel', tunnelHost: tunnelServerUrl, target: `http://127.0.0.1:${routePort}`, subdomain: `stock-${options.tag}` });
    cleanups.push(() => stock.stop());
    const floors = {} as TunnelWorld['floors'];
    // The floors are median-dev designs: they run with the bin's node options, as the daemon does (the stock client runs as users run `lt`).
    // Without them a floor got Node's 16 MiB semi-spaces against the daemon's, fewer scavenges, and a p99 the daemon could not be compared with.
    const floorExecArgv = binNodeArgs(CLI_ENTRY);
    for (const mode of options.floors ?? FLOOR_MODES) {
      const handle = await forkServer(
        { role: 'floor-tunnel', mode, tunnelHost: tunnelServerUrl, target: `http://127.0.0.1:${routePort}`, subdomain: `floor-${mode}-${options.tag}`, medianKey: emulator.key },
        { execArgv: floorExecArgv },
      );
      cleanups.push(() => handle.stop());
      floors[mode] = { host: hostOf(handle.url, domain), handle };
    }
    const world: TunnelWorld = {
      floors,
      tunnelServerUrl: `http://127.0.0.1:${tunnelPort}`,
      daemon,
      daemonHost: main.host,
      variants,
      stockHost: hostOf(stock.url, domain),
      stock,
      secret: deriveToolSecret(emulator.key),
      routePath: ROUTE_PATH,
      async restartStock() {
        await world.stock.stop();
        const again = await forkServer({ role: 'stock-tunnel', tunnelHost: tunnelServerUrl, target: `http://127.0.0.1:${routePort}`, subdomain: `stock-${options.tag}` });
        cleanups.push(() => again.stop());
        world.stock = again;
        world.stockHost = hostOf(again.url, domain);
      },
      close,
    };
    return world;
  } catch (error) {
    await close();
    throw error;
  }
}
