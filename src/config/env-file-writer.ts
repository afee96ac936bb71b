import { setEnvVariableInBytes } from './env-file-editor.js';
import { errorCode, UserError } from '../shared/errors.js';
import { writeFileAtomic } from '../shared/private-files.js';
import type { Clock } from '../shared/clock.js';
import { readSettledEnvBytes, type EnvFileSnapshot } from './settled-env-file.js';

/**
 * Writes MEDIAN_TOOLS_URL into the env file: created 0600 when missing, else
 * replaced atomically with its mode kept and every other byte unchanged. A
 * symlinked env file stays a link: the file it points at is written.
 * Returns false when the file already said so. With `stagingDir` (the data
 * dir) the new bytes, key and all, are written there and renamed onto the
 * env file: a process killed mid-write leaves no temp file beside it.
 * With `settled` (settleEnvFileEarly's, begun before the URL was known) a
 * file untouched since needs no settle wait of its own; `clock` is what that
 * wait waits on.
 */
export async function writeToolsUrl(
  envFile: string,
  url: string,
  options: { stagingDir?: string; settled?: Promise<EnvFileSnapshot | undefined> | undefined; clock?: Clock } = {},
): Promise<boolean> {
  const { settled, clock, ...writeOptions } = options;
  let bytes: Buffer | undefined;
  try {
    bytes = await readSettledEnvBytes(envFile, { since: settled, ...(clock ? { clock } : {}) });
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError('env_file_unwritable', `Cannot read ${envFile} to update MEDIAN_TOOLS_URL (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix its permissions, point --env-file elsewhere, or pass --no-env-file and set MEDIAN_TOOLS_URL yourself.',
      cause: error,
    });
  }
  const exists = bytes !== undefined;
  let next: Buffer;
  try {
    next = setEnvVariableInBytes(bytes ?? Buffer.alloc(0), 'MEDIAN_TOOLS_URL', url);
  } catch (error) {
    // No edit of this file would make dotenv read the URL back and every other variable as before.
    throw new UserError('env_file_unwritable', `Cannot set MEDIAN_TOOLS_URL in ${envFile} so that dotenv reads it back (${error instanceof Error ? error.message : String(error)}).`, {
      hint: `Set MEDIAN_TOOLS_URL=${url} in it by hand, or pass --no-env-file.`,
      cause: error,
    });
  }
  if (bytes !== undefined && next.equals(bytes)) return false;
  try {
    await writeFileAtomic(envFile, next, { ...(exists ? { keepMode: true } : { mode: 0o600 }), followSymlinks: true, ...writeOptions });
  } catch (error) {
    throw new UserError('env_file_unwritable', `Cannot write MEDIAN_TOOLS_URL to ${envFile} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix the folder permissions, point --env-file elsewhere, or pass --no-env-file and set MEDIAN_TOOLS_URL yourself.',
      cause: error,
    });
  }
  return true;
}
