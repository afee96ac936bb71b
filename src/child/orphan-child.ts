import { rm } from 'node:fs/promises';
import { readRegularFile } from '../shared/regular-file.js';
import { join, resolve } from 'node:path';
import { isProcessGroupAlive, killProcessTreeNow, readProcessStartTime } from '../platform/index.js';
import { writeFileAtomic } from '../shared/private-files.js';

/**
 * The dev server leads its own process group, so a daemon killed with
 * `kill -9` leaves it running, holding the route's port with an old
 * MEDIAN_TOOLS_URL. The daemon notes the child in the data dir, with itself
 * as the owner and the data dir the note belongs to; the next start kills
 * that group only if the owner is provably dead (its pid gone, or another
 * process by start time), the note was written for this data dir (not copied
 * from another project's), and the child is provably the same process (same
 * pid and start time). Anything it cannot prove is left running.
 */
const CHILD_FILE = 'child.json';

interface ChildNote {
  pid: number;
  startTime: string;
  command: string;
  /** The daemon that started the child. */
  owner: { pid: number; startTime: string };
  /** The data dir the note was written in (absolute). */
  dataDir: string;
}

export async function noteChild(dataDir: string, child: { pid: number; ownerPid: number; command: string[] }): Promise<void> {
  const startTime = readProcessStartTime(child.pid);
  const ownerStartTime = readProcessStartTime(child.ownerPid);
  if (startTime === undefined || ownerStartTime === undefined) return; // not provable here: never kill on a guess
  const note: ChildNote = {
    pid: child.pid,
    startTime,
    command: child.command.join(' '),
    owner: { pid: child.ownerPid, startTime: ownerStartTime },
    dataDir: resolve(dataDir),
  };
  await writeFileAtomic(join(dataDir, CHILD_FILE), `${JSON.stringify(note)}\n`);
}

/** The owner is provably alive: its pid runs, and it is the same process (same start time). */
function isOwnerAlive(owner: ChildNote['owner']): boolean {
  return readProcessStartTime(owner.pid) === owner.startTime;
}

export async function forgetChild(dataDir: string): Promise<void> {
  await rm(join(dataDir, CHILD_FILE), { force: true });
}

/**
 * Kills a dev server left behind by a daemon that died, when its pid still
 * names the same process. Returns what it did, for a log line.
 */
export async function reapOrphanChild(dataDir: string): Promise<string | undefined> {
  let note: unknown;
  try {
    // Not through a link planted in the data dir: that is an unreadable note.
    note = JSON.parse((await readRegularFile(join(dataDir, CHILD_FILE), { noFollow: true })).toString('utf8')) as unknown;
  } catch {
    return undefined; // no note (the last daemon stopped cleanly) or an unreadable one
  }
  if (!isWellFormed(note)) {
    await forgetChild(dataDir);
    return undefined;
  }
  // Another project's note copied here, or a daemon that still runs: not ours to touch (and not ours to forget).
  if (note.dataDir !== resolve(dataDir) || isOwnerAlive(note.owner)) return undefined;
  await forgetChild(dataDir);
  if (!isProcessGroupAlive(note.pid)) return undefined;
  if (readProcessStartTime(note.pid) !== note.startTime) return undefined;
  killProcessTreeNow(note.pid);
  return `Stopped the dev server a crashed median-dev left running (pid ${note.pid}: ${note.command}).`;
}

function isWellFormed(note: unknown): note is ChildNote {
  if (note === null || typeof note !== 'object') return false;
  const n = note as Partial<ChildNote>;
  return (
    Number.isInteger(n.pid) &&
    n.pid! > 0 &&
    typeof n.startTime === 'string' &&
    typeof n.dataDir === 'string' &&
    n.owner !== null &&
    typeof n.owner === 'object' &&
    Number.isInteger(n.owner.pid) &&
    n.owner.pid > 0 &&
    typeof n.owner.startTime === 'string'
  );
}
