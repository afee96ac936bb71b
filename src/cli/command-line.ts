import { basename, relative, resolve, sep } from 'node:path';
import { DEFAULTS } from '../config/defaults.js';
import type { Config } from '../config/resolve-config.js';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './cli-io.js';

/**
 * How the user ran us: `median-dev` from the installed bin (its link in
 * node_modules/.bin, a Windows shim running the package's file), else `node
 * <the file run>`: the bundled CLI (dist/bin/median-dev.js, `npm run demo` in a
 * clone) or the unbundled dist/src/cli/main.js (the tests).
 */
export function cliCommandLine(io: CliIo): string {
  const script = process.argv[1] ?? '';
  const name = basename(script);
  if (/^median-dev(\.cmd)?$/.test(name) || (name === 'median-dev.js' && script.split(sep).includes('node_modules'))) return 'median-dev';
  const entry = /^(main|median-dev)\.js$/.test(name) ? script : fileURLToPath(new URL('./main.js', import.meta.url));
  return `node ${shellWord(relative(io.cwd, entry))}`;
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

/** Commands that take neither --env nor the data dir's settings the way the others do. */
const NOT_PASTABLE_WORDS = /^(emulate|demo)\b/;

/**
 * A text (a fix, a hint) with every `median-dev …` in backticks made pastable
 * here: how the user runs us, and the flags this data dir and env file need,
 * put before a ` -- ` (what follows it is the dev server's command line).
 */
export function pastableText(text: string, io: CliIo, config: Pick<Config, 'dataDir' | 'envFile'>): string {
  const command = cliCommandLine(io);
  const flags = pastableFlags(config, io);
  if (command === 'median-dev' && flags === '') return text;
  return text.replace(/`median-dev ([^`]+)`/g, (whole, words: string) => {
    if (NOT_PASTABLE_WORDS.test(words)) return whole;
    const end = words.indexOf(' -- ');
    const line = end >= 0 ? `${words.slice(0, end)}${flags}${words.slice(end)}` : `${words}${flags}`;
    return `\`${command} ${line}\``;
  });
}
