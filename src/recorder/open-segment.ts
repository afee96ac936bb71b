import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * How durable a record is when its append resolves (and the proxy lets its
 * answer end): `os`, written to the OS (in its page cache: it survives any
 * crash or kill -9 of median-dev; the disk sync follows in the background,
 * within a bound); `disk`, on the disk (survives a power cut too).
 */
export type Durability = 'os' | 'disk';

/**
 * With `disk`, live segments are opened with O_DSYNC: the write returns after
 * the data reached the disk, as write + fdatasync would, in one call. Where
 * O_DSYNC is missing (Windows) each batch is written, then fdatasync'ed.
 */
const DSYNC = typeof constants.O_DSYNC === 'number' ? constants.O_DSYNC : 0;
/** Never through a symlink planted in the calls folder (O_EXCL alone does not follow one either). */
const NOFOLLOW = typeof constants.O_NOFOLLOW === 'number' ? constants.O_NOFOLLOW : 0;

function appendFlags(durability: Durability): number {
  return constants.O_WRONLY | constants.O_APPEND | (durability === 'disk' ? DSYNC : 0) | NOFOLLOW;
}

/** Whether a write to a segment handle opened for `durability` is on disk when it returns; else a `disk` write needs a datasync. */
export function writesAreDurable(durability: Durability): boolean {
  return durability === 'disk' && DSYNC !== 0;
}

/** Opens an existing segment for appends; a symlink at the path fails (ELOOP, EMLINK on FreeBSD). */
export function openSegment(path: string, durability: Durability): Promise<FileHandle> {
  return open(path, appendFlags(durability), 0o600);
}

/** Creates a new segment for appends; a name someone else took fails with EEXIST. */
export function createSegment(path: string, durability: Durability): Promise<FileHandle> {
  return open(path, appendFlags(durability) | constants.O_CREAT | constants.O_EXCL, 0o600);
}
