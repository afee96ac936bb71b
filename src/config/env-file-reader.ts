import { parse } from 'dotenv';
import { UserError, errorCode } from '../shared/errors.js';
import { isNotRegularFileError, readRegularFile } from '../shared/regular-file.js';

/**
 * An env file that is a FIFO, a device or a folder: refused with a code, not
 * read (reading a FIFO waits for a writer forever). A symlink to a regular
 * file is fine: the file it points at is read.
 */
export function envFileNotRegular(path: string, error: unknown): UserError | undefined {
  if (!isNotRegularFileError(error)) return undefined;
  return new UserError('env_file_not_regular', `The env file ${path} is not a regular file (${error.kind}); median-dev reads and writes regular files only.`, {
    hint: 'Point --env-file at a regular file, remove what is at that path, or pass --no-env-file.',
    cause: error,
    details: { path, kind: error.kind },
  });
}

/** The env file's bytes, or undefined when it does not exist; anything but a regular file is `env_file_not_regular`. */
export async function readEnvBytes(path: string): Promise<Buffer | undefined> {
  try {
    return await readRegularFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw envFileNotRegular(path, error) ?? error;
  }
}

/** The variables an env file sets, or an empty object when it does not exist. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readEnvBytes(path);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError('env_file_unreadable', `Cannot read the env file ${path} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Fix its permissions, point --env-file at another file, or pass --no-env-file.',
      cause: error,
    });
  }
  if (bytes === undefined) return {};
  return parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
}
