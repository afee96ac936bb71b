import { secretsToMask } from '../median/key.js';
import { resolveConfig, type CommonFlags, type Config } from '../config/resolve-config.js';
import type { CliIo } from './cli-io.js';
import { readRunningDaemonSettings } from '../control/control-file.js';
import { UserError } from '../shared/errors.js';

/** Turns commander's options for any command into the resolved config. */
export async function loadConfig(options: Record<string, unknown>, io: CliIo): Promise<Readonly<Config>> {
  const flags: CommonFlags = {};
  if (typeof options.target === 'string') flags.target = options.target;
  if (typeof options.route === 'string') flags.route = options.route;
  if (typeof options.dataDir === 'string') flags.dataDir = options.dataDir;
  const envFile = envFileFlag(options);
  if (envFile !== undefined) flags.envFile = envFile;
  if (typeof options.medianApi === 'string') flags.medianApi = options.medianApi;
  flags.json = options.json === true;
  flags.debug = options.debug === true;
  // A command in the data dir of a running daemon uses that daemon's settings unless its flags say otherwise.
  const config = await resolveConfig(flags, { env: io.env, cwd: io.cwd, runningDaemon: (dataDir) => readRunningDaemonSettings(dataDir) });
  io.addSecrets?.(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
  return config;
}

/** `--env <path>`, its alias `--env-file <path>`, or false for `--no-env-file`. */
export function envFileFlag(options: Record<string, unknown>): string | false | undefined {
  if (typeof options.env === 'string') return options.env;
  if (typeof options.envFile === 'string') return options.envFile;
  return options.envFile === false ? false : undefined;
}

/** A positive whole number from a flag, or a usage error. */
export function parseCount(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UserError('invalid_number', `${flag} must be a whole number of 1 or more, not "${text}".`, { exitCode: 2 });
  }
  return Number(text);
}
