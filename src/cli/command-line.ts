import { basename, relative, resolve } from 'node:path';
import { DEFAULTS, type Config } from '../config/index.js';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './cli-io.js';

/** How the user ran us: `median-dev` from a bin, else `node <path to main.js>` (npm run demo in a clone). */
export function cliCommandLine(io: CliIo): string {
  const script = process.argv[1] ?? '';
  if (/median-dev(\.cmd|\.js)?$/.test(basename(script))) return 'median-dev';
  return `node ${shellWord(relative(io.cwd, fileURLToPath(new URL('./main.js', import.meta.url))))}`;
}

/** A path or value as one shell word. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(text) ? text : `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * The flags a printed command needs to work when pasted into another terminal
 * of this folder: the data dir and env file, unless they are the defaults
 * (`./.median-dev`, `.env.local`). Every command line the product prints ends with it.
 */
export function pastableFlags(config: Pick<Config, 'dataDir' | 'envFile'>, io: Pick<CliIo, 'cwd'>): string {
  const flags: string[] = [];
  if (config.dataDir !== resolve(io.cwd, DEFAULTS.dataDir)) flags.push('--data-dir', shellWord(config.dataDir));
  if (config.envFile === null) flags.push('--no-env-file');
  else if (config.envFile !== resolve(io.cwd, DEFAULTS.envFile)) flags.push('--env', shellWord(config.envFile));
  return flags.length > 0 ? ` ${flags.join(' ')}` : '';
}

/** A median-dev command line as the user can paste it: how they run us, the words, then pastableFlags. */
export function pastableCommand(io: CliIo, config: Pick<Config, 'dataDir' | 'envFile'>, words: readonly string[]): string {
  return `${cliCommandLine(io)} ${words.map(shellWord).join(' ')}${pastableFlags(config, io)}`;
}
