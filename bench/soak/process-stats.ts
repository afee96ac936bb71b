/**
 * Another process's resident memory, open file descriptors and CPU time,
 * read from /proc (Linux only; the soak needs it).
 */
import { execFileSync } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';

export interface ProcessStats {
  /** performance.now() of the reading. */
  atMs: number;
  rssMiB: number;
  /** VmHWM: the peak RSS so far. */
  peakRssMiB: number;
  openFds: number;
  /** user + system CPU seconds so far. */
  cpuSeconds: number;
}

let ticksPerSecond: number | undefined;

export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      ticksPerSecond = Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
    } catch {
      ticksPerSecond = 100; // no getconf: the Linux default
    }
  }
  return ticksPerSecond;
}

function kibField(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (!match?.[1]) throw new Error(`/proc status has no ${name}.`);
  return Number(match[1]);
}

/** CPU seconds (utime + stime, fields 14 and 15 of /proc/<pid>/stat, counted after `(comm)`). */
export async function cpuSecondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

export async function readProcessStats(pid: number): Promise<ProcessStats> {
  const atMs = performance.now();
  const [status, fds, cpuSeconds] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readdir(`/proc/${pid}/fd`), cpuSecondsOf(pid)]);
  return { atMs, rssMiB: kibField(status, 'VmRSS') / 1024, peakRssMiB: kibField(status, 'VmHWM') / 1024, openFds: fds.length, cpuSeconds };
}

/** The open descriptors of `pid` by kind (socket, pipe, anon_inode:…, file path prefix), for a leak's diagnosis. */
export async function fdKinds(pid: number): Promise<Record<string, number>> {
  const kinds: Record<string, number> = {};
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = await readlink(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const kind = target.startsWith('socket:') ? 'socket' : target.startsWith('pipe:') ? 'pipe' : target.startsWith('anon_inode:') ? target : target.startsWith('/') ? 'file' : target;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}
