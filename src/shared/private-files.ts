import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, open, readdir, readlink, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { nodeCrypto } from './lazy-builtins.js';

/**
 * Creates a folder for median-dev's own data, readable by its owner only
 * (0700), or tightens one that exists to 0700. Resolves to the mode the
 * folder had before when that was not 0700 (so the caller can say it
 * changed it), else undefined.
 */
export async function ensurePrivateDir(dir: string, options: { noFollow?: boolean } = {}): Promise<number | undefined> {
  let before: number | undefined;
  try {
    const found = await lstat(dir);
    // A folder inside the data dir (calls/) that is a link would lead every record (and this chmod) outside it.
    if (options.noFollow && !found.isDirectory()) throw notAFolder(dir, found.isSymbolicLink());
    before = (found.isSymbolicLink() ? await stat(dir) : found).mode & 0o777;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOTREGULAR') throw error;
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

function notAFolder(dir: string, isLink: boolean): Error {
  const what = isLink ? 'a symbolic link' : 'not a folder';
  return Object.assign(new Error(`${dir} is ${what}; median-dev never follows links inside its data dir. Remove it.`), { code: 'ENOTREGULAR', path: dir, kind: isLink ? 'symlink' : 'other' });
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

/** The names tempPathFor gives for `path` (any tag of ours: 12 hex characters). */
function tempNamePattern(path: string): RegExp {
  const pattern = tempPathFor(path, '\u0000');
  const [before = '', after = ''] = basename(pattern).split('\u0000');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escape(before)}[0-9a-f]{12}${escape(after)}$`);
}

/**
 * Removes temp files a write of `path` left behind (a process killed between
 * creating the temp file and its rename), in the folder beside `path` and in
 * the other folders named (where a staged write puts them). Returns the
 * paths removed. Only the caller knows no write of its own is under way:
 * the daemon calls it at start, holding the data dir's lock.
 */
export async function removeStaleTemps(path: string, folders: readonly string[] = []): Promise<string[]> {
  const pattern = tempNamePattern(path);
  const removed: string[] = [];
  for (const folder of new Set([dirname(path), ...folders])) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      continue; // no such folder (yet): nothing was left there
    }
    for (const name of names) {
      if (!pattern.test(name)) continue;
      const stale = join(folder, name);
      try {
        // Never follow: a link with that name is removed, not what it points at.
        if (!(await lstat(stale)).isFile()) continue;
        await unlink(stale);
        removed.push(stale);
      } catch {
        /* Gone meanwhile, or not ours to remove: leave it. */
      }
    }
  }
  return removed;
}

/** Writes `data` to a new file at `temp` (never an existing file or link), synced, with `mode`. */
async function writeNewFile(temp: string, data: string | Uint8Array, mode: number): Promise<void> {
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
    await handle.chmod(mode).catch(() => {
      /* Windows ignores POSIX modes. */
    });
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file atomically (temp file + rename) with the given mode, default
 * 0600, or the mode the existing file has when `keepMode` is set. With
 * `followSymlinks`, a path that is a symlink keeps being one: its target is
 * written. The temp file is created new (never an existing file or link),
 * readable by the owner only while it is written, and removed when anything
 * fails, so a full disk leaves nothing behind.
 *
 * With `stagingDir` (a private folder, the data dir), the temp file is
 * written there and renamed straight onto the target, so nothing holding
 * the data ever sits beside the target, even if the process is killed
 * mid-write (removeStaleTemps clears the staging folder later). Only when
 * the two are on different filesystems (a rename cannot cross them), or the
 * staging folder does not exist, is the temp file written beside the target,
 * as without it.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; keepMode?: boolean; followSymlinks?: boolean; stagingDir?: string } = {},
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
  const beside = tempPathFor(target, nodeCrypto().randomBytes(6).toString('hex'));
  const places = options.stagingDir ? [join(options.stagingDir, basename(beside)), beside] : [beside];
  for (const [index, temp] of places.entries()) {
    try {
      await writeNewFile(temp, data, mode);
      await rename(temp, target);
      return;
    } catch (error) {
      await unlink(temp).catch(() => {
        /* Already gone (or the folder went away): nothing left to remove. */
      });
      // A staging folder on another filesystem than the target, or not there (yet): write beside it instead.
      const code = (error as NodeJS.ErrnoException).code;
      const isStagingUnusable = code === 'EXDEV' || (code === 'ENOENT' && temp !== beside);
      if (!isStagingUnusable || index === places.length - 1) throw error;
    }
  }
}
