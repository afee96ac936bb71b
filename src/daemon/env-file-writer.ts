import { setEnvVariable } from '../config/index.js';
import { errorCode, UserError } from '../shared/errors.js';
import { writeFileAtomic } from '../shared/private-files.js';
import { readSettledEnvText } from './settled-env-file.js';

/**
 * Writes MEDIAN_TOOLS_URL into the env file: created 0600 when missing, else
 * replaced atomically with its mode kept and every other byte unchanged.
 * Returns false when the file already said so.
 */
export async function writeToolsUrl(envFile: string, url: string): Promise<boolean> {
  let text: string | undefined;
  try {
    text = await readSettledEnvText(envFile);
  } catch (error) {
    throw new UserError('env_file_unwritable', `Cannot read ${envFile} to update MEDIAN_TOOLS_URL (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix its permissions, point --env-file elsewhere, or pass --no-env-file and set MEDIAN_TOOLS_URL yourself.',
      cause: error,
    });
  }
  const exists = text !== undefined;
  const next = setEnvVariable(text ?? '', 'MEDIAN_TOOLS_URL', url);
  if (exists && next === text) return false;
  try {
    await writeFileAtomic(envFile, next, exists ? { keepMode: true } : { mode: 0o600 });
  } catch (error) {
    throw new UserError('env_file_unwritable', `Cannot write MEDIAN_TOOLS_URL to ${envFile} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix the folder permissions, point --env-file elsewhere, or pass --no-env-file and set MEDIAN_TOOLS_URL yourself.',
      cause: error,
    });
  }
  return true;
}
