import { join } from 'node:path';
import { resolveSymlinks, removeStaleTemps } from '../shared/private-files.js';

/** The files of the data dir that are written whole (temp file + rename). */
const DATA_DIR_FILES = ['state.json', 'control.json', 'child.json'];

/**
 * Temp files a median-dev killed mid-write (kill -9, a power cut) left: beside
 * the env file (`.env.tmp-<hex>.local`, which holds the key) or in the data
 * dir, where writes are staged. Run at start, once this daemon holds the data
 * dir's lock, so no write of another daemon of this data dir is under way.
 * Resolves to the paths removed.
 */
export async function removeStaleTempFiles(dataDir: string, envFile: string | null): Promise<string[]> {
  const removed: string[] = [];
  if (envFile) {
    const target = await resolveSymlinks(envFile).catch(() => envFile);
    removed.push(...(await removeStaleTemps(target, [dataDir])));
  }
  for (const name of DATA_DIR_FILES) removed.push(...(await removeStaleTemps(join(dataDir, name))));
  return removed;
}
