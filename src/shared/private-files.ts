import { chmod, mkdir, open, rename, stat } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Creates a folder for median-dev's own data, readable by its owner only (0700). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is cut by the umask and ignored for folders that exist.
  await chmod(dir, 0o700).catch(() => {
    /* On Windows chmod is a no-op for folders; nothing to do there. */
  });
}

/**
 * Writes a file atomically (temp file + rename) with the given mode, default
 * 0600, or the mode the existing file has when `keepMode` is set.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; keepMode?: boolean } = {},
): Promise<void> {
  let mode = options.mode ?? 0o600;
  if (options.keepMode) {
    try {
      mode = (await stat(path)).mode & 0o777;
    } catch {
      /* No file yet: the given (or default) mode applies. */
    }
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temp, mode).catch(() => {
    /* Windows ignores POSIX modes. */
  });
  await rename(temp, path);
}
