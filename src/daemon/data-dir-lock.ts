import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, readProcessIdentity } from '../platform/index.js';
import { MedianDevError, errorCode } from '../shared/errors.js';
import { readRegularFile } from '../shared/regular-file.js';

/**
 * One daemon per data dir: `daemon.lock`, created atomically (a hard link
 * of a complete temp file, which fails when the name exists: no reader ever
 * sees a half-written lock; plain O_EXCL where links are not supported).
 * It names its holder by pid *and* process identity (start time, see
 * readProcessIdentity), so a lock left by a daemon that was killed is stale
 * once that process is gone, even when its pid was handed to another
 * process since. A stale lock is taken over under a second, short-lived
 * guard file, so two starts that both find it stale do not both take it.
 */
export const LOCK_FILE_NAME = 'daemon.lock';
const GUARD_FILE_NAME = 'daemon.lock.takeover';
/** A takeover guard older than this was left by a process killed while holding it (it is held for microseconds). */
const GUARD_STALE_MS = 5_000;
const ATTEMPTS = 20;
const RETRY_MS = 25;

interface LockContents {
  pid: number;
  identity: string | null;
  token: string;
  at: string;
}

export interface DataDirLock {
  /** Removes the lock if it is still this daemon's. Idempotent. */
  release(): Promise<void>;
}

function parseLock(text: string): LockContents | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContents>;
    if (typeof value.pid === 'number' && typeof value.token === 'string') {
      return { pid: value.pid, identity: typeof value.identity === 'string' ? value.identity : null, token: value.token, at: String(value.at) };
    }
  } catch {
    /* not a lock of ours: treated as stale below */
  }
  return undefined;
}

/** The lock as it stands, or undefined when there is none; what is not a regular file of ours reads as garbage (stale). */
async function readLock(path: string): Promise<{ text: string; lock: LockContents | undefined } | undefined> {
  try {
    const text = (await readRegularFile(path, { noFollow: true })).toString('utf8');
    return { text, lock: parseLock(text) };
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    return { text: `unreadable:${errorCode(error) ?? ''}`, lock: undefined };
  }
}

/** Whether the process a lock names still runs: same pid, and the same process when its identity can be read. */
export function isLockHolderAlive(lock: LockContents): boolean {
  if (!isProcessAlive(lock.pid)) return false;
  if (lock.identity === null) return true;
  const now = readProcessIdentity(lock.pid);
  return now === undefined || now === lock.identity;
}

/** Writes `text` into a new file at `path` (O_EXCL); false when the name exists. A failed write leaves no file. */
async function writeExclusive(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

/** Creates `path` with `text` atomically; false when it exists. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeExclusive(temp, text);
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    // No hard links on this filesystem (FAT, some network shares): O_EXCL, written at once.
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(errorCode(error) ?? '')) throw error;
    return await writeExclusive(path, text);
  } finally {
    await unlink(temp).catch(() => {
      /* already gone */
    });
  }
}

function alreadyRunning(dataDir: string, pid: number): MedianDevError {
  return new MedianDevError('daemon_already_running', `median-dev is already running for ${dataDir} (pid ${pid}).`, {
    hint: `Attach to it with \`median-dev watch\`, stop it (Ctrl-C in its terminal, or \`kill ${pid}\`), or pass another --data-dir.`,
  });
}

/** Removes the stale lock whose text was `staleText`, under the takeover guard; another start may be doing the same. */
async function takeOverStale(dataDir: string, path: string, staleText: string, self: string): Promise<void> {
  const guard = join(dataDir, GUARD_FILE_NAME);
  if (!(await createExclusive(guard, self))) {
    const guardAge = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (guardAge > GUARD_STALE_MS) await unlink(guard).catch(() => undefined);
    return; // someone else is taking over: look again
  }
  try {
    // Still the lock judged stale (not one a faster start created meanwhile)?
    const again = await readLock(path);
    if (again?.text === staleText) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/**
 * Takes the data dir's lock for the daemon `pid`, or throws
 * `daemon_already_running` naming the live holder. The data dir must exist.
 */
export async function acquireDataDirLock(dataDir: string, pid: number): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE_NAME);
  const mine: LockContents = { pid, identity: readProcessIdentity(pid) ?? null, token: randomBytes(16).toString('hex'), at: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createExclusive(path, text)) {
      let released: Promise<void> | undefined;
      return {
        release() {
          released ??= (async () => {
            const now = await readLock(path);
            if (now?.lock?.token === mine.token) await unlink(path).catch(() => undefined);
          })();
          return released;
        },
      };
    }
    const held = await readLock(path);
    if (held === undefined) continue; // released meanwhile: try again
    if (held.lock && held.lock.token !== mine.token && isLockHolderAlive(held.lock)) throw alreadyRunning(dataDir, held.lock.pid);
    await takeOverStale(dataDir, path, held.text, text);
    // Not unref'd: the start waits on it (at most RETRY_MS), and nothing else may keep the process alive yet.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * Math.random()));
  }
  const last = (await readLock(path))?.lock;
  throw alreadyRunning(dataDir, last?.pid ?? 0);
}
