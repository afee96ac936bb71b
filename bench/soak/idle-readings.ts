/** The measured process left idle after the last call: its RSS every second (the daemon's soak and the floors' soak). */
import { readProcessStats, type ProcessStats } from './process-stats.js';

/** The readings while idle, and the last one. */
export interface IdleReadings {
  seconds: number;
  rssMiB: number[];
  last: ProcessStats;
}

const IDLE_SAMPLE_MS = 1_000;

/** Reads `pid` every second for `seconds`, sending nothing (stops early when `signal` aborts). */
export async function readWhileIdle(pid: number, seconds: number, signal: AbortSignal): Promise<IdleReadings> {
  const rssMiB: number[] = [];
  let last = await readProcessStats(pid);
  for (let i = 0; i < seconds && !signal.aborted; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
    last = await readProcessStats(pid);
    rssMiB.push(last.rssMiB);
  }
  return { seconds: rssMiB.length, rssMiB, last };
}
