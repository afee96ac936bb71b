import { basename, relative } from 'node:path';
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
