/**
 * The CLI's command line as the soak report prints it: what the soak spawned
 * (`node`, the bin's shebang options, the entry, the arguments) with the
 * machine-specific parts replaced (the temporary folder by `<tmp>`, loopback
 * ports by `<port>`, paths inside the repository made relative to it), and
 * the environment the soak added in front, so the line is the real one.
 */
import { isAbsolute, relative } from 'node:path';

export interface CommandLineParts {
  /** The arguments after `node`, as spawned. */
  nodeArgv: readonly string[];
  /** Environment variables the soak set for the CLI (shown as `NAME=value` in front). */
  env?: Readonly<Record<string, string>>;
  /** The repository's root: paths inside it are printed relative to it. */
  repoRoot: string;
  /** The run's temporary folder, printed as `<tmp>`. */
  tmpRoot: string;
  /** The node binary (process.execPath), printed as `node`. */
  nodePath: string;
}

const quoted = (word: string): string => (/^[\w@%+=:,./<>-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function printable(word: string, parts: CommandLineParts): string {
  if (word === parts.nodePath) return 'node';
  if (word.startsWith(parts.tmpRoot)) return `<tmp>${word.slice(parts.tmpRoot.length)}`;
  if (word.startsWith('file://')) return printable(new URL(word).pathname, parts);
  if (isAbsolute(word) && !relative(parts.repoRoot, word).startsWith('..')) return relative(parts.repoRoot, word);
  return word.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
}

export function soakCommandLine(parts: CommandLineParts): string {
  const env = Object.entries(parts.env ?? {}).map(([name, value]) => `${name}=${quoted(value.split(' ').map((w) => printable(w, parts)).join(' '))}`);
  return [...env, 'node', ...parts.nodeArgv.map((word) => quoted(printable(word, parts)))].join(' ');
}
