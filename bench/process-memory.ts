/** Another process's resident memory: /proc/<pid>/status on Linux, else `ps -o rss=`. */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface ProcessMemory {
  rssMiB: number;
  /** Peak RSS so far (VmHWM), when the platform tells. */
  peakMiB: number | undefined;
  source: '/proc' | 'ps';
}

function kibField(status: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match?.[1] ? Number(match[1]) : undefined;
}

export async function readProcessMemory(pid: number): Promise<ProcessMemory> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const rss = kibField(status, 'VmRSS');
    if (rss !== undefined) {
      const peak = kibField(status, 'VmHWM');
      return { rssMiB: rss / 1024, peakMiB: peak === undefined ? undefined : peak / 1024, source: '/proc' };
    }
  } catch {
    // No /proc (macOS, …): ask ps below.
  }
  const { stdout } = await execFileAsync('ps', ['-o', 'rss=', '-p', String(pid)]);
  const kib = Number(stdout.trim());
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`ps gave no RSS for pid ${pid}.`);
  return { rssMiB: kib / 1024, peakMiB: undefined, source: 'ps' };
}
