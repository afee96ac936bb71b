import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, open, readlink, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Creates a folder for median-dev's own data, readable by its owner only
 * (0700), or tightens one that exists to 0700. Resolves to the mode the
 * folder had before when that was not 0700 (so the caller can say it
 * changed it), else undefined.
 */
export async function ensurePrivateDir(dir: string): Promise<number | undefined> {
  let before: number | undefined;
  try {
    before = (await stat(dir)).mode & 0o777;
  } catch {
    before = undefined; // created below
  }
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => explainMkdirFailure(dir, error));
  // mkdir's mode is cut by the umask and ignored for folders that exist.
  await chmod(dir, 0o700).catch(() => {
    /* On Windows chmod is a no-op for folders; nothing to do there. */
  });
  if (before === undefined || before === 0o700) return undefined;
  // Where chmod does nothing (Windows), nothing changed to report.
  const after = (await stat(dir)).mode & 0o777;
  return after === before ? undefined : before;
}

/**
 * `mkdir -p` reports ENOENT when it cannot create a folder under a read-only
 * or unwritable parent (Node's recursive mkdir): the nearest folder that
 * exists says why (EROFS, EACCES), and that is the error thrown.
 */
async function explainMkdirFailure(dir: string, error: unknown): Promise<never> {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  let parent = dirname(dir);
  for (;;) {
    const exists = await stat(parent).then(
      () => true,
      () => false,
    );
    if (exists) break;
    if (dirname(parent) === parent) throw error;
    parent = dirname(parent);
  }
  await access(parent, constants.W_OK).catch((why: unknown) => {
    throw Object.assign(why as Error, { path: dir });
  });
  throw error;
}

/** Symlinks followed at most, as the kernel does (Linux ELOOP after 40). */
const MAX_LINKS = 40;

/**
 * The file a path names after following its symlinks, also when the last
 * link points at a file that does not exist yet (which is then created).
 */
export async function resolveSymlinks(path: string): Promise<string> {
  let current = resolve(path);
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch {
      return current; // does not exist (yet): this is the file to write
    }
    if (!isLink) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  throw Object.assign(new Error(`Too many symbolic links: ${path}`), { code: 'ELOOP' });
}

/**
 * The name of the temp file a write of `path` goes through: next to it (a
 * rename is atomic only within one filesystem), hidden, and with the file's
 * own last extension kept at the end, so ignore patterns written for the file
 * cover it too: `.env.local` → `.env.tmp-3f9a1c2b4d5e.local` (matched by
 * `.env*.local`, `.env*`, `*.local`), `state.json` → `.state.tmp-….json`.
 */
export function tempPathFor(path: string, tag: string): string {
  const name = basename(path);
  const ext = extname(name);
  const stem = ext === '' ? name : name.slice(0, -ext.length);
  const hidden = stem.startsWith('.') ? stem : `.${stem}`;
  return join(dirname(path), `${hidden}.tmp-${tag}${ext}`);
}

/**
 * Writes a file atomically (temp file + rename) with the given mode, default
 * 0600, or the mode the existing file has when `keepMode` is set. With
 * `followSymlinks`, a path that is a symlink keeps being one: its target is
 * written. The temp file is created new (never an existing file or link),
 * readable by the owner only while it is written, and removed when anything
 * fails, so a full disk leaves nothing behind.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; keepMode?: boolean; followSymlinks?: boolean } = {},
): Promise<void> {
  const target = options.followSymlinks ? await resolveSymlinks(path) : path;
  let mode = options.mode ?? 0o600;
  if (options.keepMode) {
    try {
      mode = (await stat(target)).mode & 0o777;
    } catch {
      /* No file yet: the given (or default) mode applies. */
    }
  }
  const temp = tempPathFor(target, randomBytes(6).toString('hex'));
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode).catch(() => {
      /* Windows ignores POSIX modes. */
    });
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {
      /* Already gone (or the folder went away): nothing left to remove. */
    });
    throw error;
  }
}
