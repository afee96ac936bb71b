import { readFile } from 'node:fs/promises';
import { parse } from 'dotenv';
import { UserError, errorCode } from '../shared/errors.js';

/** The variables an env file sets, or an empty object when it does not exist. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return {};
    throw new UserError('env_file_unreadable', `Cannot read the env file ${path} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix its permissions, point --env-file at another file, or pass --no-env-file.',
      cause: error,
    });
  }
  return parse(text.replace(/^\uFEFF/, ''));
}
