import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Open flags of a live segment: appends that are durable once written
 * (O_DSYNC: the write returns after the data reached the disk, as write +
 * fdatasync would, in one call). Where O_DSYNC is missing (Windows) each
 * batch is written, then fdatasync'ed.
 */
const DSYNC = typeof constants.O_DSYNC === 'number' ? constants.O_DSYNC : 0;
/** Never through a symlink planted in the calls folder (O_EXCL alone does not follow one either). */
const NOFOLLOW = typeof constants.O_NOFOLLOW === 'number' ? constants.O_NOFOLLOW : 0;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | DSYNC | NOFOLLOW;
const CREATE_FLAGS = APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL;

/** Whether a write to a segment handle is durable when it returns (O_DSYNC); else it needs a datasync. */
export const writesAreDurable = DSYNC !== 0;

/** Opens an existing segment for durable appends; a symlink at the path fails (ELOOP, EMLINK on FreeBSD). */
export function openSegment(path: string): Promise<FileHandle> {
  return open(path, APPEND_FLAGS, 0o600);
}

/** Creates a new segment for durable appends; a name someone else took fails with EEXIST. */
export function createSegment(path: string): Promise<FileHandle> {
  return open(path, CREATE_FLAGS, 0o600);
}
