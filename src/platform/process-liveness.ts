import { errorCode } from '../shared/errors.js';
import { realSystemCalls, type SystemCalls } from './system-calls.js';

/** The fields of `/proc/<pid>/stat` we read. */
export interface ProcStat {
  pid: number;
  /** `R`, `S`, `D`, `Z` (zombie: dead, waiting to be reaped), … */
  state: string;
  processGroup: number;
}

/** Parses `/proc/<pid>/stat` ("pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses). */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const [state, , group] = text.slice(close + 1).trim().split(/\s+/);
  const processGroup = Number(group);
  if (!Number.isInteger(pid) || !state || !Number.isInteger(processGroup)) return null;
  return { pid, state, processGroup };
}

/** kill(pid, 0): delivered or EPERM (someone else's process) means it exists. */
function existsBySignal(pid: number, system: SystemCalls): boolean {
  try {
    system.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** A zombie has exited and only waits for its parent to reap it; on Linux /proc tells. */
function isZombie(pid: number, system: SystemCalls): boolean {
  if (system.platform !== 'linux') return false;
  try {
    return parseProcStat(system.readTextFile(`/proc/${pid}/stat`))?.state === 'Z';
  } catch {
    // Gone between the two checks, or no /proc: not known to be a zombie.
    return false;
  }
}

/** Whether a process with this pid is running (an exited, unreaped zombie is not). */
export function isProcessAlive(pid: number, system: SystemCalls = realSystemCalls): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return existsBySignal(pid, system) && !isZombie(pid, system);
}

/**
 * Whether any process of the group `groupId` still runs (POSIX; on Windows,
 * which has no groups, whether that one process runs). On Linux, a group
 * left with only zombies counts as gone.
 */
export function isProcessGroupAlive(groupId: number, system: SystemCalls = realSystemCalls): boolean {
  if (!Number.isInteger(groupId) || groupId <= 0) return false;
  if (system.platform === 'win32') return isProcessAlive(groupId, system);
  if (!existsBySignal(-groupId, system)) return false;
  if (system.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = system.listDir('/proc');
  } catch {
    // No /proc (a locked-down container): trust kill(-pgid, 0).
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: ProcStat | null;
    try {
      stat = parseProcStat(system.readTextFile(`/proc/${entry}/stat`));
    } catch {
      // That process exited while we listed /proc.
      continue;
    }
    if (stat && stat.processGroup === groupId && stat.state !== 'Z') return true;
  }
  return false;
}

/**
 * When a process started (clock ticks since boot, /proc/<pid>/stat field 22):
 * a pid and its start time name one process, even after pids are reused.
 * Linux only; elsewhere undefined, and callers must not act on a guess.
 */
export function readProcessStartTime(pid: number, system: SystemCalls = realSystemCalls): string | undefined {
  if (system.platform !== 'linux') return undefined;
  try {
    const text = system.readTextFile(`/proc/${pid}/stat`);
    const fields = text.slice(text.lastIndexOf(')') + 1).trim().split(/\s+/);
    // fields[0] is field 3 (state), so field 22 (starttime) is fields[19].
    return fields[19];
  } catch {
    return undefined;
  }
}

/**
 * What names one process for good, beyond its pid (which the system hands
 * out again): on Linux its start time from /proc, on macOS and the BSDs the
 * start time `ps` prints. Undefined on Windows and wherever it cannot be
 * read; a caller then knows the pid only, and must treat a live pid as that
 * process.
 */
export function readProcessIdentity(pid: number, system: SystemCalls = realSystemCalls): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (system.platform === 'linux') {
    const start = readProcessStartTime(pid, system);
    return start === undefined ? undefined : `linux-start:${start}`;
  }
  if (system.platform === 'win32') return undefined;
  // `lstart`: the full start date and time, the same for the whole life of the process.
  const out = system.readCommand?.('ps', ['-o', 'lstart=', '-p', String(pid)], 2_000)?.trim();
  return out ? `ps-lstart:${out}` : undefined;
}
