import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readEnvFile } from '../config/env-file-reader.js';
import { checkMedianKey } from '../median/key.js';
import { errorCode } from '../shared/errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../shared/private-files.js';

/**
 * What `median-dev emulate` keeps in its data dir: `emulator.env` (0600), a
 * dotenv file with the emulator's URL (`MEDIAN_API_URL`) and, when it made
 * the key itself, that throwaway key (`MEDIAN_KEY`). The next run reuses the
 * key (so env files pointing at it stay right), `start --env` reads both, and
 * `emulate call` finds the running emulator through it.
 */
export const EMULATOR_ENV_FILE = 'emulator.env';

const HEADER = '# median-dev emulate: the local emulator and its throwaway key (not a real Median key)';
const OURS = /^\s*(?:export\s+)?(?:MEDIAN_KEY|MEDIAN_API_URL)\s*=|^# median-dev emulate:/;

export function emulatorEnvPath(dataDir: string): string {
  return join(dataDir, EMULATOR_ENV_FILE);
}

/** The key and URL the last emulator with this data dir wrote; a key of the wrong shape is ignored. */
export async function readEmulatorEnv(dataDir: string): Promise<{ key?: string; apiUrl?: string }> {
  const vars = await readEnvFile(emulatorEnvPath(dataDir));
  const key = vars.MEDIAN_KEY && checkMedianKey(vars.MEDIAN_KEY) === undefined ? vars.MEDIAN_KEY : undefined;
  return { ...(key ? { key } : {}), ...(vars.MEDIAN_API_URL ? { apiUrl: vars.MEDIAN_API_URL } : {}) };
}

/**
 * Writes this run's URL and (when it is the emulator's own) key; other lines
 * (the MEDIAN_TOOLS_URL a `start --env` wrote) are kept.
 */
export async function writeEmulatorEnv(dataDir: string, values: { key?: string; apiUrl: string }): Promise<string> {
  await ensurePrivateDir(dataDir);
  const path = emulatorEnvPath(dataDir);
  const before = await readFile(path, 'utf8').catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return '';
    throw error;
  });
  const kept = before.split(/\r?\n/).filter((line) => line !== '' && !OURS.test(line));
  const lines = [HEADER, ...(values.key ? [`MEDIAN_KEY=${values.key}`] : []), `MEDIAN_API_URL=${values.apiUrl}`, ...kept];
  await writeFileAtomic(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return path;
}
