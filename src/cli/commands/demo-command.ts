import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { packageRoot } from '../../shared/package-root.js';
import { isTargetNamed, resolveStartConfig, type StartConfig } from '../../config/resolve-config.js';
import { startDaemon } from '../../daemon/start-daemon.js';
import { startEmulator } from '../../emulator/start-emulator.js';
import type { Traffic } from '../../emulator/traffic.js';
import { startTunnelServer } from '../../tunnel-server/tunnel-server.js';
import { writeLine, type CliIo } from '../cli-io.js';
import { createCliLogger } from '../cli-logger.js';
import { holdSignalsDuringStart, eventLinePrinter, runDaemonInForeground } from '../foreground-daemon.js';
import { VERSION } from '../version.js';
import { cliCommandLine, shellWord } from '../command-line.js';
import { DEFAULT_TEAMMATE } from '../teammate-name.js';

/** The compiled example route, in the package's dist/examples/ (found from the package's root: this module may be bundled). */
const EXAMPLE_ROUTE = join(packageRoot(import.meta.url), 'dist', 'examples', 'tools-route', 'server.js');


/**
 * The whole product offline: the emulator, the loopback tunnel server, the
 * example route as the child command, the daemon, and an agent sending
 * plausible calls every couple of seconds.
 */
/** What `--with-production` and `--with-teammate` hold in the demo's organisation. */
export const DEMO_PRODUCTION_URL = 'https://acme.example/api/median';
export const DEMO_TEAMMATE_URL = 'https://dana-7f3a.loca.lt/api/median';

/**
 * The demo's throwaway emulator key (and the emulator's URL) in the demo's
 * own env file, 0600, so commands from a second terminal can sign with it.
 */
async function writeDemoEnvFile(dataDir: string, envFile: string, values: { key: string; apiUrl: string }): Promise<void> {
  await ensurePrivateDir(dataDir);
  await writeFileAtomic(
    envFile,
    `# median-dev demo: this run's emulator and its throwaway key (not a real Median key)\nMEDIAN_KEY=${values.key}\nMEDIAN_API_URL=${values.apiUrl}\n`,
    { mode: 0o600 },
  );
}

export async function runDemo(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const dataDir = typeof options.dataDir === 'string' ? options.dataDir : await mkdtemp(join(tmpdir(), 'median-dev-demo-'));
  const json = options.json === true;
  const tunnelServer = await startTunnelServer({ domain: 'lt.median.test' });
  const emulator = await startEmulator({ resolve: (hostname) => tunnelServer.resolve(hostname) });
  let traffic: Traffic | undefined;
  try {
    // The organisation as a team has it: production and a teammate's tunnel, held by the emulator.
    if (options.withProduction === true) await emulator.holdEndpoint({ url: DEMO_PRODUCTION_URL, tools: ['shipParcel', 'trackParcel'] });
    if (options.withTeammate === true) await emulator.holdEndpoint({ url: DEMO_TEAMMATE_URL, tools: ['orderStatus'] });
    const envFile = join(dataDir, 'demo.env');
    await writeDemoEnvFile(dataDir, envFile, { key: emulator.key, apiUrl: emulator.url });
    const secondTerminal = `${cliCommandLine(io)} calls --data-dir ${shellWord(dataDir)} --env ${shellWord(envFile)}`;
    const config = await resolveStartConfig(
      {
        route: '/api/median',
        port: typeof options.port === 'string' ? options.port : '0',
        tunnel: 'localtunnel',
        tunnelHost: tunnelServer.url,
        medianApi: emulator.url,
        envFile,
        dataDir,
        json,
        tui: options.tui !== false,
        debug: options.debug === true,
        ...(options.allowProductionOrg === true ? { allowProductionOrg: true } : {}),
        ...(typeof options.inspectorPort === 'string' ? { inspectorPort: options.inspectorPort } : {}),
        ...(options.inspector === false ? { inspector: false } : {}),
      },
      // The key is read from demo.env, as a second terminal's `--env <data dir>/demo.env` reads it: the TUI and doctor name the same source.
      { env: {}, cwd: io.cwd, isTTY: io.isTTY && io.isInteractive },
    );
    const tryIt = `From another terminal (replay, show, call, manifest take the same two flags): ${secondTerminal}`;
    if (json) io.stdout.write(`${JSON.stringify({ event: 'log', at: new Date().toISOString(), level: 'info', message: tryIt })}\n`);
    else if (!config.tui) {
      writeLine(io.stdout, `median-dev demo: emulator ${emulator.url}, tunnel server ${tunnelServer.url}, data in ${dataDir}`);
      writeLine(io.stdout, tryIt);
    }
    const onEvent = config.tui ? undefined : eventLinePrinter(io, { json, config });
    const signalsDuringStart = holdSignalsDuringStart(io);
    const daemon = await startDaemon({
      config: routeFoundFromItsOutput(config),
      ...(onEvent ? { onEvent } : {}),
      childCommand: [process.execPath, EXAMPLE_ROUTE],
      baseEnv: {
        PATH: io.env.PATH,
        HOME: io.env.HOME,
        SYSTEMROOT: io.env.SYSTEMROOT,
        MEDIAN_KEY: emulator.key,
        MEDIAN_API_URL: emulator.url,
        // The route binds a port of its own choosing and says which: a port picked here and bound by the route a moment
        // later could be taken in between by any listen or outgoing connection on the machine (EADDRINUSE, the route exits).
        PORT: '0',
        HOST: '127.0.0.1',
      },
      version: VERSION,
      pid: io.pid,
      logger: createCliLogger(io, { debug: config.debug, quiet: config.tui }),
      isDemo: true,
      tunnel: {
        reconnectBaseMs: 300,
        reconnectMaxMs: 2_000,
        probe: false,
        async simulateHostnameChange() {
          // Lose the tunnel and have its name taken: it comes back under another hostname.
          for (const client of tunnelServer.clients()) {
            tunnelServer.refuseName(client.id);
            tunnelServer.dropClient(client.id, { forget: true });
          }
        },
      },
    }).catch((error: unknown) => {
      signalsDuringStart.release();
      throw error;
    });
    // The agent starts talking once the endpoint is synced.
    daemon.events.on((event) => {
      if (event.event === 'endpoint' && event.action === 'synced' && !traffic) {
        traffic = emulator.startTraffic({
          intervalMs: demoIntervalMs(io.env.MEDIAN_DEV_DEMO_INTERVAL_MS),
          // A high call waits for a teammate, as in Median: say how to be that teammate.
          onApproval: (approval) => {
            if (approval.waitingFor !== 'teammate') return;
            daemon.note(
              `${approval.tool} (risk ${approval.risk}) waits for a teammate's approval, nothing sent yet: ${cliCommandLine(io)} emulate approve ${approval.id} --as ${shellWord(DEFAULT_TEAMMATE)} --env ${shellWord(envFile)}`,
            );
          },
        });
      }
    });
    await runDaemonInForeground(daemon, io, { json, tui: config.tui, isDemo: true, helpNote: `From another terminal: ${secondTerminal}`, printing: onEvent !== undefined, signalsDuringStart, config });
    if (!json) writeLine(io.stderr, `The demo's calls stay in ${dataDir}: ${secondTerminal}`);
  } finally {
    traffic?.stop();
    await emulator.close();
    await tunnelServer.close();
  }
}

/**
 * The demo's route is always found from what it prints (`tools route
 * listening on …`), even in a data dir whose state.json remembers a
 * `--target` (an earlier version's demo named one): the port it binds is
 * new each run.
 */
function routeFoundFromItsOutput(config: StartConfig): StartConfig {
  return isTargetNamed(config.targetFrom) ? Object.freeze({ ...config, targetFrom: 'remembered' as const }) : config;
}

/** The agent's pace: a call every two seconds, or (a hidden knob for the browser tests) every `MEDIAN_DEV_DEMO_INTERVAL_MS`. */
function demoIntervalMs(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && Number.isInteger(ms) && ms >= 50 ? ms : 2_000;
}
