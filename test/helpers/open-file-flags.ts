import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The open flags (as `open(2)` got them, O_DSYNC included) of each file a
 * process holds open whose path passes `matches`, read from Linux's
 * /proc/<pid>/fd and /proc/<pid>/fdinfo, as any second process can.
 */
export function openFileFlags(pid: number, matches: (path: string) => boolean): Array<{ path: string; flags: number }> {
  const found: Array<{ path: string; flags: number }> = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let path: string;
    let info: string;
    try {
      path = readlinkSync(`/proc/${pid}/fd/${fd}`);
      info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    } catch {
      continue; // closed meanwhile
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && matches(path)) found.push({ path, flags: Number.parseInt(flags, 8) });
  }
  return found;
}

/** The flags of the call segments (`calls-*.jsonl`) under `dir` that `pid` holds open (test files share a process). */
export function openSegmentFlags(pid: number, dir: string): number[] {
  return openFileFlags(pid, (path) => path.startsWith(dir) && /calls-\d+\.jsonl$/.test(path)).map((f) => f.flags);
}
