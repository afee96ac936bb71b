import { resolveStartConfig, type StartConfig, type StartFlags } from '../../config/resolve-config.js';
import { settleEnvFileEarly } from '../../config/settled-env-file.js';
import { keyFingerprint, secretsToMask } from '../../median/key.js';
import { errorCode } from '../../shared/errors.js';
import { configKeySource } from '../../daemon/key-source.js';
import type { DaemonOptions } from '../../daemon/daemon-options.js';
import { useColor, writeLine, type CliIo } from '../cli-io.js';
import { createCliLogger } from '../cli-logger.js';
import { eventToJsonLine, eventToLogLine } from '../format-event.js';
import { holdSignalsDuringStart, eventLinePrinter, runDaemonInForeground } from '../foreground-daemon.js';
import { assertKeyShape } from '../require-secret.js';
import { createStyle } from '../terminal-style.js';
import { VERSION } from '../version.js';
import { envFileFlag } from '../load-config.js';
import { coalesceOutput, EVENT_LINES_WINDOW_MS } from '../coalesced-output.js';

export function toStartFlags(options: Record<string, unknown>): StartFlags {
  const flags: StartFlags = {};
  const str = (name: keyof StartFlags & string) => {
    const v = options[name];
    if (typeof v === 'string') (flags as Record<string, unknown>)[name] = v;
  };
  for (const name of ['target', 'route', 'dataDir', 'medianApi', 'port', 'tunnel', 'tunnelHost', 'subdomain', 'publicUrl', 'inspectorPort', 'restartOnUrlChange', 'domain', 'ngrokApi', 'ssh', 'cloudflaredTunnel'] as const) str(name);
  if (options.attach === true) flags.attach = true;
  if (Array.isArray(options.sshOption)) flags.sshOption = options.sshOption as string[];
  const envFile = envFileFlag(options);
  if (envFile !== undefined) flags.envFile = envFile;
  if (Array.isArray(options.watch)) flags.watch = options.watch as string[];
  if (Array.isArray(options.tunnelDomain)) flags.tunnelDomain = options.tunnelDomain as string[];
  flags.autoFix = options.autoFix !== false;
  if (typeof options.allowProductionOrg === 'boolean') flags.allowProductionOrg = options.allowProductionOrg;
  flags.tui = options.tui !== false;
  flags.json = options.json === true;
  flags.debug = options.debug === true;
  flags.redactVisitor = options.redactVisitor === true;
  if (options.syncRecords === true) flags.syncRecords = true;
  if (options.inspector === false) flags.inspector = false;
  return flags;
}

export async function runStart(command: string[], options: Record<string, unknown>, io: CliIo): Promise<void> {
  const flags = toStartFlags(options);
  const config = await resolveStartConfig(flags, { env: io.env, cwd: io.cwd, isTTY: io.isTTY && io.isInteractive });
  // Without the TUI the events are lines, and the lines of a busy moment leave in one write (coalesced-output.ts).
  const lines = config.tui ? undefined : coalesceOutput(io, { windowMs: EVENT_LINES_WINDOW_MS });
  try {
    await startAndRun(command, flags, config, lines?.io ?? io, lines?.flush);
  } finally {
    lines?.close();
  }
}

async function startAndRun(command: string[], flags: StartFlags, config: StartConfig, io: CliIo, flush: (() => void) | undefined): Promise<void> {
  // The env file's settle (two reads 40 ms apart) runs now, beside the daemon's load and the tunnel's registration, not after the tunnel opened.
  const settledEnvFile = config.envFile ? settleEnvFileEarly(config.envFile) : undefined;
  io.addSecrets?.(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret, ngrokAuthtoken: config.ngrokAuthtoken }));
  // A malformed key would fail every connect and signature check: say so now, with the docs' message.
  assertKeyShape(config);
  const logger = createCliLogger(io, { debug: config.debug, quiet: config.tui, secrets: secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret, ngrokAuthtoken: config.ngrokAuthtoken }) });
  sayWhereTheKeyCameFrom(config, io);
  // The route asks the Median API named by its own MEDIAN_API_URL: --median-api has to reach it too.
  const baseEnv = flags.medianApi === undefined ? io.env : { ...io.env, MEDIAN_API_URL: config.medianApi };
  // The daemon's modules (most of what start loads) load after the key's line: in the bundle the import() is a
  // require() that holds the main thread for its whole load, so begun earlier it only held that first line back.
  const { startDaemon } = await import('../../daemon/start-daemon.js');
  // Without the TUI the lines print as the events happen, the start's own included (the tunnel and the dev server start before it resolves).
  const onEvent = config.tui ? undefined : eventLinePrinter(io, { json: config.json, config, ...(flush ? { flush } : {}) });
  const startWith = (startConfig: Readonly<StartConfig>) =>
    startDaemon({ config: startConfig, childCommand: command, baseEnv, version: VERSION, logger, pid: io.pid, ...(settledEnvFile ? { settledEnvFile } : {}), ...(onEvent ? { onEvent } : {}), ...testKnobs(io.env) });
  const signalsDuringStart = holdSignalsDuringStart(io);
  const daemon = await startWith(config).catch((error: unknown) => {
    // Like Vite: the default port taken (another project's daemon) is no reason to stop; an explicit --port is.
    if (config.isPortExplicit || errorCode(error) !== 'proxy_port_in_use') throw error;
    say(config, io, 'warn', `Port ${config.port} is in use (another median-dev?), so the proxy listens on a free port instead. Pass --port <n> to insist on one.`);
    return startWith(Object.freeze({ ...config, port: 0 }));
  }).catch((error: unknown) => {
    signalsDuringStart.release();
    throw error;
  });
  await runDaemonInForeground(daemon, io, { json: config.json, tui: config.tui, printing: onEvent !== undefined, signalsDuringStart, config });
}

/** Once, at start: which file (of the env cascade) or the environment gave MEDIAN_KEY. */
function sayWhereTheKeyCameFrom(config: StartConfig, io: CliIo): void {
  if (!config.medianKey) return;
  say(config, io, 'info', `MEDIAN_KEY ${keyFingerprint(config.medianKey)} from ${configKeySource(config)}`);
}

/** A line of our own before the daemon's events: a `log` event with --json, a log line without the TUI. */
function say(config: StartConfig, io: CliIo, level: 'info' | 'warn', message: string): void {
  if (config.tui) return;
  const event = { event: 'log' as const, at: new Date().toISOString(), level, message };
  if (config.json) io.stdout.write(`${eventToJsonLine(event)}\n`);
  else writeLine(io.stdout, eventToLogLine(event, createStyle(useColor(io))) ?? message);
}

/** A positive whole number of milliseconds from a hidden test knob, else undefined. */
function knobMs(value: string | undefined): number | undefined {
  const ms = Number(value);
  return value !== undefined && Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

/**
 * Hidden knobs for the end-to-end fault tests, read here only (neither flags
 * nor documented): MEDIAN_DEV_CALL_TIMEOUT_MS shortens Median's 10 s call
 * limit as the proxy judges answers; MEDIAN_DEV_TUNNEL_OPEN_TIMEOUT_MS
 * shortens the 15 s a tunnel (re)open may take;
 * MEDIAN_DEV_ROUTE_READY_TIMEOUT_MS shortens the 60 s a heal waits for the
 * dev server's route (to connect, or after a restart);
 * MEDIAN_DEV_NGROK_FOLLOW_MS shortens the 5 s between two looks at an
 * attached ngrok agent's API; MEDIAN_DEV_TUNNEL_PROBE_VIA sends the probe of
 * another provider's public URL (a fake cloudflared's, ngrok's or ssh
 * server's, whose real names have no DNS offline) to that fake's edge;
 * MEDIAN_DEV_TUNNEL_PROBE_INTERVAL_MS shortens the 24 s between two probes of
 * an idle tunnel (for tests whose point is what a probe finds, not when);
 * MEDIAN_DEV_TUNNEL_BACKOFF_MAX_MS caps the tunnel's 1 s-to-10 s open and
 * reopen backoff (for tests whose point is what happens once the server is
 * back, not how long the tries wait).
 */
function testKnobs(env: CliIo['env']): Pick<DaemonOptions, 'timing' | 'tunnel'> {
  const callTimeoutMs = knobMs(env.MEDIAN_DEV_CALL_TIMEOUT_MS);
  const routeReadyTimeoutMs = knobMs(env.MEDIAN_DEV_ROUTE_READY_TIMEOUT_MS);
  const openTimeoutMs = knobMs(env.MEDIAN_DEV_TUNNEL_OPEN_TIMEOUT_MS);
  const agentFollowMs = knobMs(env.MEDIAN_DEV_NGROK_FOLLOW_MS);
  const probeVia = env.MEDIAN_DEV_TUNNEL_PROBE_VIA || undefined;
  const probeIntervalMs = knobMs(env.MEDIAN_DEV_TUNNEL_PROBE_INTERVAL_MS);
  const reconnectMaxMs = knobMs(env.MEDIAN_DEV_TUNNEL_BACKOFF_MAX_MS);
  const tunnel = {
    ...(openTimeoutMs ? { openTimeoutMs } : {}),
    ...(agentFollowMs ? { agentFollowMs } : {}),
    ...(probeVia ? { probeVia } : {}),
    ...(probeIntervalMs ? { probeIntervalMs } : {}),
    ...(reconnectMaxMs ? { reconnectMaxMs, reconnectBaseMs: Math.min(1_000, reconnectMaxMs) } : {}),
  };
  return {
    ...(callTimeoutMs || routeReadyTimeoutMs ? { timing: { ...(callTimeoutMs ? { callTimeoutMs } : {}), ...(routeReadyTimeoutMs ? { routeReadyTimeoutMs } : {}) } } : {}),
    ...(Object.keys(tunnel).length > 0 ? { tunnel } : {}),
  };
}
