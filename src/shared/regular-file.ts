import { closeSync, constants, fstatSync, openSync, readFileSync, type BigIntStats, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Reading a file median-dev was pointed at (an env file) or keeps (its data
 * dir's files) without being fooled by what is at that path:
 *
 * - a FIFO, a device, a socket or a folder is refused, never read: opening a
 *   FIFO for reading blocks until a writer comes (a `start` that hangs with
 *   nothing said), a device may never end. The open is non-blocking
 *   (O_NONBLOCK), then the handle itself is checked (fstat), so what is
 *   checked is what is read, with no gap for a swap in between.
 * - with `noFollow`, a symlink at the path is refused too (O_NOFOLLOW): a
 *   link planted in the data dir must not lead a read (or a write) outside it.
 *
 * Where the flags do not exist (Windows) they are 0: there are no FIFOs or
 * symlinks of that kind to open by accident there.
 */
export type NotRegularKind = 'fifo' | 'device' | 'folder' | 'socket' | 'symlink' | 'other';

/** Thrown (as `code: 'ENOTREGULAR'`) for a path that is not a regular file. */
export interface NotRegularFileError extends Error {
  code: 'ENOTREGULAR';
  path: string;
  kind: NotRegularKind;
}

const NONBLOCK = typeof constants.O_NONBLOCK === 'number' ? constants.O_NONBLOCK : 0;
const NOFOLLOW = typeof constants.O_NOFOLLOW === 'number' ? constants.O_NOFOLLOW : 0;

export function notRegularFile(path: string, kind: NotRegularKind): NotRegularFileError {
  const what = { fifo: 'a FIFO (named pipe)', device: 'a device', folder: 'a folder', socket: 'a socket', symlink: 'a symbolic link', other: 'not a regular file' }[kind];
  return Object.assign(new Error(`${path} is ${what}, not a regular file.`), { code: 'ENOTREGULAR' as const, path, kind });
}

export function isNotRegularFileError(error: unknown): error is NotRegularFileError {
  return error instanceof Error && (error as { code?: unknown }).code === 'ENOTREGULAR';
}

/** The open flags for reading (or, with `flags`, writing) a path that must be a regular file. */
export function regularFileFlags(flags: number, options: { noFollow?: boolean } = {}): number {
  return flags | NONBLOCK | (options.noFollow ? NOFOLLOW : 0);
}

/** What an open of `path` failed with: a not-regular-file error where the failure says what is there. */
function openError(path: string, error: unknown, options: { noFollow?: boolean }): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  // O_NOFOLLOW on a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD.
  if (options.noFollow && (code === 'ELOOP' || code === 'EMLINK')) return notRegularFile(path, 'symlink');
  if (code === 'EISDIR') return notRegularFile(path, 'folder');
  if (code === 'ENXIO') return notRegularFile(path, 'socket'); // a socket (or a FIFO opened for writing with no reader)
  return error;
}

/** Throws `ENOTREGULAR` when what was opened at `path` is not a regular file. */
function checkRegular(path: string, stats: Stats | BigIntStats): void {
  if (stats.isFile()) return;
  const kind: NotRegularKind = stats.isFIFO()
    ? 'fifo'
    : stats.isCharacterDevice() || stats.isBlockDevice()
      ? 'device'
      : stats.isDirectory()
        ? 'folder'
        : stats.isSocket()
          ? 'socket'
          : 'other';
  throw notRegularFile(path, kind);
}

/**
 * Opens `path` with `flags` (default read-only), refusing what is not a
 * regular file (`ENOTREGULAR`); other errors (ENOENT, EACCES) are thrown as
 * they are. The handle reads and writes blocking as usual: O_NONBLOCK does
 * nothing to regular files.
 */
export async function openRegularFile(
  path: string,
  options: { noFollow?: boolean; flags?: number; mode?: number } = {},
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, regularFileFlags(options.flags ?? constants.O_RDONLY, options), options.mode ?? 0o600);
  } catch (error) {
    throw openError(path, error, options);
  }
  try {
    checkRegular(path, await handle.stat());
  } catch (error) {
    await handle.close().catch(() => {
      /* the error above is the one to report */
    });
    throw error;
  }
  return handle;
}

/**
 * The bytes of a regular file (see openRegularFile), read with synchronous
 * calls (openRegularFileSync): the files read this way are small (an env
 * file, state.json, control.json), and each asynchronous call was a hop to a
 * libuv thread and back; the first of a process starts the thread pool.
 */
export async function readRegularFile(path: string, options: { noFollow?: boolean } = {}): Promise<Buffer> {
  const { fd } = openRegularFileSync(path, options);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * openRegularFile without the thread pool, for reading only, with the stats
 * its check took (bigint: the inode in full). A command that does nothing
 * else meanwhile opens and reads a store's files faster this way (each
 * asynchronous call is a hop to a libuv thread and back); the caller closes
 * `fd` with closeSync.
 */
export function openRegularFileSync(path: string, options: { noFollow?: boolean } = {}): { fd: number; stats: BigIntStats } {
  let fd: number;
  try {
    fd = openSync(path, regularFileFlags(constants.O_RDONLY, options));
  } catch (error) {
    throw openError(path, error, options);
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    checkRegular(path, stats);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
