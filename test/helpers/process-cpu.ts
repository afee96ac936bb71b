import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (`getconf CLK_TCK`, 100 on every common Linux). */
function clockTicks(): number {
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

/**
 * CPU seconds (user + system) a process has used so far, from
 * /proc/<pid>/stat (Linux only): fields 14 and 15, counted after the
 * `(comm)` field, which may itself hold spaces.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

export interface CpuUse {
  cpuSeconds: number;
  wallSeconds: number;
  /** CPU seconds per wall second: 1 is one core kept busy. */
  share: number;
}

/** Starts measuring a process's CPU time; `stop()` says how much it used since. */
export function measureCpu(pid: number): { stop(): CpuUse } {
  const startedAt = performance.now();
  const startCpu = cpuSecondsOf(pid);
  return {
    stop() {
      const cpuSeconds = cpuSecondsOf(pid) - startCpu;
      const wallSeconds = (performance.now() - startedAt) / 1000;
      return { cpuSeconds, wallSeconds, share: wallSeconds > 0 ? cpuSeconds / wallSeconds : 0 };
    },
  };
}
