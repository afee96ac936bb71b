import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessGroupAlive, killProcessTreeNow, readProcessStartTime } from '../platform/index.js';
import { writeFileAtomic } from '../shared/private-files.js';

/**
 * The dev server leads its own process group, so a daemon killed with
 * `kill -9` leaves it running, holding the route's port with an old
 * MEDIAN_TOOLS_URL. The daemon notes the child in the data dir; the next
 * start kills that group if it is provably the same process (same pid and
 * start time).
 */
const CHILD_FILE = 'child.json';

interface ChildNote {
  pid: number;
  startTime: string;
  command: string;
}

export async function noteChild(dataDir: string, pid: number, command: string[]): Promise<void> {
  const startTime = readProcessStartTime(pid);
  if (startTime === undefined) return; // not provable here: never kill on a guess
  await writeFileAtomic(join(dataDir, CHILD_FILE), `${JSON.stringify({ pid, startTime, command: command.join(' ') } satisfies ChildNote)}\n`);
}

export async function forgetChild(dataDir: string): Promise<void> {
  await rm(join(dataDir, CHILD_FILE), { force: true });
}

/**
 * Kills a dev server left behind by a daemon that died, when its pid still
 * names the same process. Returns what it did, for a log line.
 */
export async function reapOrphanChild(dataDir: string): Promise<string | undefined> {
  let note: ChildNote;
  try {
    note = JSON.parse(await readFile(join(dataDir, CHILD_FILE), 'utf8')) as ChildNote;
  } catch {
    return undefined; // no note (the last daemon stopped cleanly) or an unreadable one
  }
  await forgetChild(dataDir);
  if (!Number.isInteger(note.pid) || note.pid <= 0 || typeof note.startTime !== 'string') return undefined;
  if (!isProcessGroupAlive(note.pid)) return undefined;
  if (readProcessStartTime(note.pid) !== note.startTime) return undefined;
  killProcessTreeNow(note.pid);
  return `Stopped the dev server a crashed median-dev left running (pid ${note.pid}: ${note.command}).`;
}
