import { errorCode } from '../shared/errors.js';
import { realSystemCalls, type SystemCalls } from './system-calls.js';

/** `graceful`: ask the process tree to stop; `force`: kill it outright. */
export type StopMode = 'graceful' | 'force';

/** What signalling a child's whole process tree means on one platform. */
export type TreeSignalPlan =
  /** POSIX: `process.kill(-pid, signal)` reaches every process of the child's group. */
  | { kind: 'group'; groupId: number; signal: 'SIGTERM' | 'SIGKILL' }
  /** Windows, graceful: `child.kill()` (Windows has no groups and no SIGTERM). */
  | { kind: 'child'; signal: 'SIGTERM' }
  /** Windows, force: `taskkill /pid <pid> /T /F` ends the tree. */
  | { kind: 'run'; file: 'taskkill'; args: string[] };

export function planTreeSignal(pid: number, mode: StopMode, platform: NodeJS.Platform): TreeSignalPlan {
  if (platform === 'win32') {
    return mode === 'graceful'
      ? { kind: 'child', signal: 'SIGTERM' }
      : { kind: 'run', file: 'taskkill', args: ['/pid', String(pid), '/T', '/F'] };
  }
  return { kind: 'group', groupId: pid, signal: mode === 'graceful' ? 'SIGTERM' : 'SIGKILL' };
}

/**
 * The steps a stop takes, each given the grace period to work. On Windows
 * `child.kill()` ends only cmd.exe and orphans the dev server under it, out of
 * reach of `taskkill /T`, so a stop goes straight to the tree kill there.
 */
export function stopModes(platform: NodeJS.Platform): readonly StopMode[] {
  return platform === 'win32' ? ['force'] : ['graceful', 'force'];
}

/** The signals that mean "stop" to a CLI on this platform (for its handlers). */
export function stopSignals(platform: NodeJS.Platform): readonly NodeJS.Signals[] {
  // Windows raises SIGINT (Ctrl+C), SIGBREAK (Ctrl+Break) and SIGHUP (console closed).
  return platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
}

/** The part of a `ChildProcess` a tree signal needs. */
export interface SignalTarget {
  readonly pid?: number | undefined;
  kill(signal?: NodeJS.Signals): boolean;
}

const TASKKILL_TIMEOUT_MS = 10_000;

/**
 * Signals the child and everything it started. Resolves true when the signal
 * was delivered, false when there was nothing left to signal.
 */
export async function signalProcessTree(
  target: SignalTarget,
  mode: StopMode,
  system: SystemCalls = realSystemCalls,
): Promise<boolean> {
  const pid = target.pid;
  if (pid === undefined) return false;
  const plan = planTreeSignal(pid, mode, system.platform);
  switch (plan.kind) {
    case 'child':
      return target.kill(plan.signal);
    case 'run':
      return (await system.run(plan.file, plan.args, TASKKILL_TIMEOUT_MS)) === 0;
    case 'group':
      try {
        system.kill(-plan.groupId, plan.signal);
        return true;
      } catch (error) {
        if (errorCode(error) === 'ESRCH') return false;
        // EPERM: macOS refuses a group holding a zombie or a setuid member;
        // the child itself can still be reached.
        return target.kill(plan.signal);
      }
    default: {
      const unreachable: never = plan;
      throw new Error(`unknown signal plan ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Kills a process tree at once, synchronously, for a process that is about
 * to exit (a second Ctrl-C): SIGKILL to the group on POSIX, `taskkill /T /F`
 * on Windows. Never throws: the tree may already be gone.
 */
export function killProcessTreeNow(pid: number, system: SystemCalls = realSystemCalls): void {
  const plan = planTreeSignal(pid, 'force', system.platform);
  try {
    if (plan.kind === 'group') system.kill(-plan.groupId, plan.signal);
    else if (plan.kind === 'run') system.runSync(plan.file, plan.args, 5_000);
    else system.kill(pid, plan.signal);
  } catch (error) {
    if (errorCode(error) !== 'ESRCH') throw error;
  }
}
