import { systemClock, type Clock } from '../shared/clock.js';
import { errorCode } from '../shared/errors.js';
import { openRegularFile } from '../shared/regular-file.js';
import { envFileNotRegular, readEnvBytes, readEnvFile } from './env-file-reader.js';

/** How long two reads of the env file are apart, and how many tries at most. */
const SETTLE_MS = 40;
const MAX_READS = 10;

function sameVars(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

const sameBytes = (a: Buffer | undefined, b: Buffer | undefined): boolean => (a === undefined || b === undefined ? a === b : a.equals(b));

/** Reads with `read` until two reads `SETTLE_MS` apart agree (at most `MAX_READS` reads). */
async function readSettled<T>(read: () => Promise<T>, isSame: (a: T, b: T) => boolean, clock: Clock = systemClock): Promise<T> {
  let value = await read();
  for (let count = 1; count < MAX_READS; count++) {
    await new Promise<void>((resolve) => clock.setTimer(resolve, SETTLE_MS));
    const next = await read();
    if (isSame(value, next)) return next;
    value = next;
  }
  return value;
}

/**
 * The env file's variables once two reads a moment apart agree. A file
 * written in place (an editor, `echo >`, fs.writeFile) is empty between its
 * truncation and the write; read then, a MEDIAN_KEY would look removed.
 */
export function readSettledEnvFile(path: string): Promise<Record<string, string>> {
  return readSettled(() => readEnvFile(path), sameVars);
}

/**
 * The env file as a settled read found it: its bytes (undefined: no file) and
 * what fstat said of it (device, inode, size, modification and change times to
 * the nanosecond), the same before and after the read.
 */
export interface EnvFileSnapshot {
  readonly bytes: Buffer | undefined;
  readonly stamp: string;
}

/** One read with fstat before and after it (from the handle read); `stamp` is undefined when the two differ (written meanwhile). */
async function readStamped(path: string): Promise<{ bytes: Buffer | undefined; stamp: string | undefined }> {
  let handle;
  try {
    handle = await openRegularFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { bytes: undefined, stamp: 'absent' };
    throw envFileNotRegular(path, error) ?? error;
  }
  try {
    const stampOf = async () => {
      const s = await handle.stat({ bigint: true });
      return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    };
    const before = await stampOf();
    const bytes = await handle.readFile();
    return { bytes, stamp: before === (await stampOf()) ? before : undefined };
  } finally {
    await handle.close();
  }
}

/**
 * Starts the settled read a later update of the env file needs (two reads
 * `SETTLE_MS` apart that agree) now, before the URL to write is known:
 * `start` begins it as soon as its config is, so when the tunnel opens the
 * update waits for no settle (see readSettledEnvBytes' `since`). Never
 * rejects: undefined when the read failed or the file was being written (the
 * update then settles as it always did, and reports the error).
 */
export function settleEnvFileEarly(path: string, clock: Clock = systemClock): Promise<EnvFileSnapshot | undefined> {
  return readSettled(() => readStamped(path), (a, b) => a.stamp !== undefined && a.stamp === b.stamp && sameBytes(a.bytes, b.bytes), clock).then(
    (read) => (read.stamp === undefined ? undefined : { bytes: read.bytes, stamp: read.stamp }),
    () => undefined, // the update reads again and reports what is wrong
  );
}

/**
 * The env file's bytes (undefined when it does not exist) once two reads agree,
 * so an update does not rewrite a file caught half-written and lose its lines.
 * Bytes, not text: a value in another encoding than UTF-8 is kept as it is.
 * What is not a regular file is `env_file_not_regular`; other read errors are
 * thrown as they are.
 *
 * `since`: a settled read taken earlier (settleEnvFileEarly). When fstat finds
 * the file untouched since then (same inode, size and times, before and after
 * this read) and its bytes the same, they are the settled bytes with no wait:
 * any write since, a truncation included, changes its modification time. Else
 * the file settles as without it.
 */
export async function readSettledEnvBytes(path: string, options: { since?: Promise<EnvFileSnapshot | undefined> | undefined; clock?: Clock } = {}): Promise<Buffer | undefined> {
  const snapshot = await options.since;
  if (snapshot) {
    const now = await readStamped(path);
    if (now.stamp === snapshot.stamp && sameBytes(now.bytes, snapshot.bytes)) return now.bytes;
  }
  return readSettled(() => readEnvBytes(path), sameBytes, options.clock);
}
