import { basename, dirname, join } from 'node:path';
import { readEnvFile } from './env-file-reader.js';

/**
 * The env files a development server reads, in the order Next.js and
 * dotenv-flow give them for `development`: for each variable the first file
 * that sets it wins. median-dev reads MEDIAN_KEY (and the other variables it
 * needs) the same way, and writes MEDIAN_TOOLS_URL into the env file only.
 */
export const ENV_CASCADE = ['.env.development.local', '.env.local', '.env.development', '.env'] as const;

export interface EnvCascade {
  /** Every variable, from the first file that sets it (an empty value counts as unset). */
  vars: Record<string, string>;
  /** For each variable in `vars`, the absolute path of the file it came from. */
  sources: Record<string, string>;
  /** The files looked at, in order. */
  files: string[];
}

/**
 * The cascade beside the env file. An env file that is not one of the
 * cascade's names (`--env config/dev.env`) was named by the user, so it comes
 * first; one that is (the default `.env.local`) keeps its place.
 */
export function envCascadeFiles(envFile: string): string[] {
  const folder = dirname(envFile);
  const cascade = ENV_CASCADE.map((name) => join(folder, name));
  return (ENV_CASCADE as readonly string[]).includes(basename(envFile)) ? cascade : [envFile, ...cascade];
}

/**
 * `known`: files already read (the env file as read once its write settled), used instead of reading them again.
 * `read`: how each other file is read (after an edit: once its write settled, see settled-env-file.ts).
 */
export async function readEnvCascade(
  envFile: string,
  known: ReadonlyMap<string, Record<string, string>> = new Map(),
  read: (path: string) => Promise<Record<string, string>> = readEnvFile,
): Promise<EnvCascade> {
  const files = envCascadeFiles(envFile);
  const vars: Record<string, string> = {};
  const sources: Record<string, string> = {};
  for (const file of files) {
    for (const [name, value] of Object.entries(known.get(file) ?? (await read(file)))) {
      if (value === '' || name in vars) continue;
      vars[name] = value;
      sources[name] = file;
    }
  }
  return { vars, sources, files };
}

/** Where a missing MEDIAN_KEY goes, for a hint. */
export function missingKeyHint(envFile: string | null): string {
  if (!envFile) return 'Set MEDIAN_KEY in the environment (--no-env-file reads no env file).';
  return `Put MEDIAN_KEY=median_key_… in ${envFile}, or in the environment. median-dev reads it the way Next.js does: ${ENV_CASCADE.join(', ')}, first found wins.`;
}
