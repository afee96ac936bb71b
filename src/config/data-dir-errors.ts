import { relative, isAbsolute } from 'node:path';
import { UserError, isMedianDevError } from '../shared/errors.js';

/** What to do about each way a folder can refuse writes. */
const FIXES: Record<string, { why: string; fix: string }> = {
  EROFS: { why: 'it is on a read-only filesystem', fix: 'Pass --data-dir <a folder on a writable disk> (or set MEDIAN_DEV_DIR).' },
  EACCES: { why: 'you have no permission to write there', fix: 'Fix its permissions (chmod u+rwx on it and its parent) or pass --data-dir <a folder you own>.' },
  EPERM: { why: 'the system does not allow writing there', fix: 'Fix its permissions or pass --data-dir <a folder you own>.' },
  ENOSPC: { why: 'the disk is full', fix: 'Free some space on that disk, or pass --data-dir <a folder on another disk>.' },
  EDQUOT: { why: 'your disk quota is used up', fix: 'Free some space, or pass --data-dir <a folder on another disk>.' },
  ENOTDIR: { why: 'a file is in the way where a folder should be', fix: 'Move that file away, or pass another --data-dir.' },
  EEXIST: { why: 'a file is in the way where a folder should be', fix: 'Move that file away, or pass another --data-dir.' },
  ENAMETOOLONG: { why: 'its path is too long for the filesystem', fix: 'Pass a shorter --data-dir.' },
  ELOOP: { why: 'its path goes round a loop of symbolic links', fix: 'Fix the links, or pass another --data-dir.' },
  ENOENT: { why: 'its parent folder does not exist or cannot be created', fix: 'Create the parent folder, or pass --data-dir <a folder that can be created>.' },
};

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A file system error met while preparing the data dir, as the user error
 * it is (`data_dir_unwritable`, with what to do), instead of an "unexpected
 * error … this is a bug". Undefined for anything else: a coded error of ours,
 * an error about another path, or one this does not know.
 */
export function dataDirError(error: unknown, dataDir: string): UserError | undefined {
  if (isMedianDevError(error) || !(error instanceof Error)) return undefined;
  const { code, path } = error as NodeJS.ErrnoException;
  const known = code === undefined ? undefined : FIXES[code];
  if (!known) return undefined;
  // The path the call failed on: inside the data dir, or the data dir's own parent chain (mkdir -p).
  if (typeof path === 'string' && !isInside(path, dataDir) && !isInside(dataDir, path)) return undefined;
  return new UserError('data_dir_unwritable', `Cannot write to the data dir ${dataDir}: ${known.why} (${code}).`, {
    hint: known.fix,
    cause: error,
  });
}

/** What to say when starting changed the data dir's mode to 0700. */
export function dataDirModeNote(dataDir: string, before: number): string {
  const was = `0${before.toString(8).padStart(3, '0')}`;
  const why = (before & 0o077) !== 0 ? 'so that only you can read the recordings' : 'because median-dev writes its recordings there';
  return `The data dir ${dataDir} was ${was}; median-dev made it 0700 ${why}.`;
}
