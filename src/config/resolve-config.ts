import { isAbsolute, resolve as resolvePath } from 'node:path';
import { UserError, type ErrorCode } from '../shared/errors.js';
import { DEFAULTS, RESTART_ON_URL_CHANGE, type RestartOnUrlChange } from './defaults.js';
import { resolveTunnelSettings, type TunnelFlags, type TunnelSettings } from './tunnel-config.js';
import { readEnvCascade } from './env-cascade.js';
import { readProjectState, type ProjectState } from './project-state.js';

/** Flags every command takes (SPEC §2.2). Absent means "not given". */
export interface CommonFlags {
  target?: string;
  route?: string;
  dataDir?: string;
  /** A path, or false for --no-env-file. */
  envFile?: string | boolean;
  medianApi?: string;
  json?: boolean;
  debug?: boolean;
}

export interface StartFlags extends CommonFlags, TunnelFlags {
  port?: string | number;
  /** --tunnel-domain (repeatable): domains the tunnel server names tunnels under, besides its own. */
  tunnelDomain?: string[];
  watch?: string[];
  autoFix?: boolean;
  /** true: --allow-production-org; false: --no-allow-production-org (forget it); absent: what the data dir remembers. */
  allowProductionOrg?: boolean;
  tui?: boolean;
  redactVisitor?: boolean;
  /** --sync-records: each answer waits until its record is on the disk. */
  syncRecords?: boolean;
  inspectorPort?: string | number;
  /** False for --no-inspector. */
  inspector?: boolean;
  /** auto (default), always or never. */
  restartOnUrlChange?: string;
}

/** What the daemon running in a data dir uses; the other commands there default to it, below their own flags. */
export interface DaemonSettings {
  target: string;
  route: string;
  /** Absolute, or null: it runs with --no-env-file. */
  envFile: string | null;
  medianApi: string;
}

export interface ConfigContext {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The settings of a daemon running in `dataDir`, if one runs (a second terminal uses them). */
  runningDaemon?: (dataDir: string) => Promise<DaemonSettings | undefined>;
}

/**
 * Where `target` came from: `--target` (`flag`), the daemon running in the
 * data dir (`daemon`), an earlier start's `--target` (`remembered-flag`),
 * what an earlier start found from its dev server (`remembered`), or the default.
 */
export type TargetFrom = 'flag' | 'daemon' | 'remembered-flag' | 'remembered' | 'default';

export interface Config {
  cwd: string;
  dataDir: string;
  target: string;
  targetFrom: TargetFrom;
  route: string;
  /** Absolute path of the env file, or null with --no-env-file. */
  envFile: string | null;
  medianApi: string;
  medianKey: string | undefined;
  keySource: 'env' | 'env-file' | undefined;
  /** With `keySource: 'env-file'`: the file the key came from (the first of the env cascade that sets it). */
  keyFile: string | undefined;
  toolSecret: string | undefined;
  /** NGROK_AUTHTOKEN from the environment, else the env cascade (masked like the key wherever it could show). */
  ngrokAuthtoken: string | undefined;
  json: boolean;
  debug: boolean;
  /** What the data dir remembered when the config was resolved. */
  state: ProjectState;
}

export interface StartConfig extends Config, TunnelSettings {
  port: number;
  /** --port was given: a taken port is an error, not a reason to pick another. */
  isPortExplicit: boolean;
  /** Domains the tunnel server may name tunnels under besides its own (`--tunnel-domain`), lowercase. */
  tunnelDomains: string[];
  watch: string[];
  autoFix: boolean;
  /** The flag as given (undefined: not given; the data dir's state decides). */
  allowProductionOrg: boolean | undefined;
  tui: boolean;
  redactVisitor: boolean;
  /** --sync-records: a call's answer ends once its record is on the disk (else once written to the OS, synced within a second). */
  syncRecords: boolean;
  /** The browser inspector's port on 127.0.0.1 (taken: any free one; 0: any), or null with --no-inspector. Left out: 4142. */
  inspectorPort?: number | null;
  /** auto: leave a dev server that reloads its env files itself running (next dev), restart the rest; always; never. */
  restartOnUrlChange: RestartOnUrlChange;
}

function usage(code: ErrorCode, message: string, hint?: string): UserError {
  return new UserError(code, message, { exitCode: 2, ...(hint ? { hint } : {}) });
}

export function parseHttpUrl(value: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage('invalid_url_flag', `${flag} must be a full URL like http://localhost:3000, not "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usage('invalid_url_flag', `${flag} must be an http:// or https:// URL, not "${value}".`);
  }
  return url;
}

function originOf(value: string, flag: string): string {
  const url = parseHttpUrl(value, flag);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw usage('invalid_url_flag', `${flag} takes an origin (scheme, host and port) without a path: ${url.origin}`);
  }
  return url.origin;
}

function checkRoute(route: string): string {
  if (!route.startsWith('/') || /[\s?#]/.test(route)) {
    throw usage('invalid_route', `--route must be a path starting with "/", like /api/median, not "${route}".`);
  }
  return route.length > 1 ? route.replace(/\/+$/, '') : route;
}

function parsePort(value: string | number): number {
  const port = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw usage('invalid_port', `--port must be a whole number from 0 to 65535, not "${value}".`);
  }
  return port;
}

/** Resolves flags, then env, then the env file, then the data dir's memory, then defaults. */
export async function resolveConfig(
  flags: CommonFlags,
  context: ConfigContext,
  options: { remembersMedianApi?: boolean } = { remembersMedianApi: true },
): Promise<Readonly<Config>> {
  const { env, cwd } = context;
  const abs = (p: string) => (isAbsolute(p) ? p : resolvePath(cwd, p));
  const dataDir = abs(flags.dataDir ?? env.MEDIAN_DEV_DIR ?? DEFAULTS.dataDir);
  const state = await readProjectState(dataDir);
  const daemon = await context.runningDaemon?.(dataDir);
  const envFile = flags.envFile === false ? null : typeof flags.envFile === 'string' ? abs(flags.envFile) : daemon ? daemon.envFile : abs(DEFAULTS.envFile);
  // The key and the other variables median-dev reads come from the env cascade (Next.js's order).
  const cascade = envFile ? await readEnvCascade(envFile) : { vars: {} as Record<string, string>, sources: {} as Record<string, string> };
  const fileVars = cascade.vars;

  const envKey = env.MEDIAN_KEY !== undefined && env.MEDIAN_KEY !== '' ? env.MEDIAN_KEY : undefined;
  const fileKey = fileVars.MEDIAN_KEY !== undefined && fileVars.MEDIAN_KEY !== '' ? fileVars.MEDIAN_KEY : undefined;
  const medianKey = envKey ?? fileKey;

  const target = flags.target ?? daemon?.target ?? state.target ?? DEFAULTS.target;
  const targetFrom = targetSource(flags.target, daemon?.target, state);
  // Other commands talk to the Median the last start used (an emulator, say); start itself does not.
  const remembered = options.remembersMedianApi ? state.medianApi : undefined;
  const medianApi = flags.medianApi ?? env.MEDIAN_API_URL ?? daemon?.medianApi ?? fileVars.MEDIAN_API_URL ?? remembered ?? DEFAULTS.medianApi;

  return Object.freeze({
    cwd,
    dataDir,
    target: originOf(target, '--target'),
    targetFrom,
    route: checkRoute(flags.route ?? daemon?.route ?? state.route ?? DEFAULTS.route),
    envFile,
    medianApi: parseHttpUrl(medianApi, '--median-api').toString().replace(/\/+$/, ''),
    medianKey,
    keySource: envKey ? 'env' : fileKey ? 'env-file' : undefined,
    keyFile: !envKey && fileKey ? cascade.sources.MEDIAN_KEY : undefined,
    toolSecret: env.MEDIAN_TOOL_SECRET || fileVars.MEDIAN_TOOL_SECRET || undefined,
    ngrokAuthtoken: env.NGROK_AUTHTOKEN || fileVars.NGROK_AUTHTOKEN || undefined,
    json: flags.json === true,
    debug: flags.debug === true,
    state,
  } satisfies Config);
}

function targetSource(flag: string | undefined, daemon: string | undefined, state: ProjectState): TargetFrom {
  if (flag !== undefined) return 'flag';
  if (daemon !== undefined) return 'daemon';
  if (state.target === undefined) return 'default';
  // A state.json from before targetFrom: a target other than the default was a --target.
  if (state.targetFrom === 'flag' || (state.targetFrom === undefined && state.target !== DEFAULTS.target)) return 'remembered-flag';
  return 'remembered';
}

/** Whether the target was named by the user (now or at an earlier start): it is then never looked for from the dev server. */
export function isTargetNamed(from: TargetFrom): boolean {
  return from === 'flag' || from === 'remembered-flag' || from === 'daemon';
}

/** `start`'s own flags on top of the common ones. */
export async function resolveStartConfig(
  flags: StartFlags,
  context: ConfigContext & { isTTY: boolean },
): Promise<Readonly<StartConfig>> {
  // Left out, --target and --route are what the last start in the data dir used (README, --help);
  // the Median API is not: an emulator's URL from an earlier run would hide the real one.
  const base = await resolveConfig(flags, context, { remembersMedianApi: false });
  const publicUrl = flags.publicUrl === undefined ? undefined : originOf(flags.publicUrl, '--public-url');
  const tunnelHost = parseHttpUrl(flags.tunnelHost ?? context.env.MEDIAN_DEV_TUNNEL_HOST ?? DEFAULTS.tunnelHost, '--tunnel-host')
    .toString()
    .replace(/\/+$/, '');
  const tunnelSettings = resolveTunnelSettings(flags, { publicUrl, tunnelHost }, base.state);
  const subdomain = flags.subdomain;
  if (subdomain !== undefined && !/^[a-z0-9][a-z0-9-]{3,62}$/.test(subdomain)) {
    throw usage('invalid_subdomain', `--subdomain must be 4 to 63 characters of a-z, 0-9 and "-", not "${subdomain}".`);
  }
  const json = flags.json === true;
  return Object.freeze({
    ...base,
    port: parsePort(flags.port ?? DEFAULTS.port),
    isPortExplicit: flags.port !== undefined,
    ...tunnelSettings,
    tunnelDomains: (flags.tunnelDomain ?? []).map(parseTunnelDomain),
    subdomain,
    watch: flags.watch ?? [],
    autoFix: flags.autoFix !== false,
    allowProductionOrg: flags.allowProductionOrg,
    tui: !json && flags.tui !== false && context.isTTY,
    redactVisitor: flags.redactVisitor === true,
    syncRecords: flags.syncRecords === true,
    inspectorPort: flags.inspector === false ? null : parseInspectorPort(flags.inspectorPort ?? DEFAULTS.inspectorPort),
    restartOnUrlChange: parseRestartOnUrlChange(flags.restartOnUrlChange ?? 'auto'),
  } satisfies StartConfig);
}

/** A DNS name of two labels or more (`tunnels.example.com`), lowercase, no scheme or port. */
function parseTunnelDomain(value: string): string {
  const domain = value.trim().toLowerCase().replace(/\.$/, '');
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(domain)) {
    throw usage('invalid_tunnel_domain', `--tunnel-domain takes a domain name like tunnels.example.com (the domain your tunnel server names tunnels under), not "${value}".`);
  }
  return domain;
}

function parseInspectorPort(value: string | number): number {
  const port = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw usage('invalid_port', `--inspector-port must be a whole number from 0 to 65535, not "${value}".`);
  }
  return port;
}

function parseRestartOnUrlChange(value: string): RestartOnUrlChange {
  if ((RESTART_ON_URL_CHANGE as readonly string[]).includes(value)) return value as RestartOnUrlChange;
  throw usage('invalid_restart_policy', `--restart-on-url-change must be auto, always or never, not "${value}".`);
}
