/**
 * The harness side of memory-probe.ts: signals the process, waits for its
 * line, and adds what /proc says of the same moment (RSS split into
 * anonymous memory, the V8 heap and malloc among it, and file pages: the
 * node binary's code touched so far).
 */
import { readFile, writeFile } from 'node:fs/promises';

export interface HeapReading {
  rssMiB: number;
  heapTotalMiB: number;
  heapUsedMiB: number;
  heapPhysicalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  mallocedMiB: number;
  spaces: Record<string, { sizeMiB: number; usedMiB: number; physicalMiB: number }>;
}

export interface MemoryReading {
  /** From the process itself (before the forced collection, when one was asked for). */
  before: HeapReading;
  /** After a full collection: the live heap (only when asked for). */
  afterGc?: HeapReading;
  /** /proc/<pid>/status at the same moment. */
  rssAnonMiB: number;
  rssFileMiB: number;
}

const WAIT_MS = 3_000;

function kib(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
}

/** The next reading of `pid` (which runs memory-probe.ts writing to `file`); undefined if none came within 3 s. */
export async function readMemory(pid: number, file: string, options: { fullGc?: boolean } = {}): Promise<MemoryReading | undefined> {
  const linesBefore = await readLines(file);
  if (options.fullGc) await writeFile(`${file}.gc`, '');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  process.kill(pid, 'SIGUSR2');
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    const lines = await readLines(file);
    if (lines.length > linesBefore.length) {
      const line = JSON.parse(lines[lines.length - 1]!) as { before: HeapReading; afterGc?: HeapReading };
      return { ...line, rssAnonMiB: kib(status, 'RssAnon'), rssFileMiB: kib(status, 'RssFile') + kib(status, 'RssShmem') };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
  } catch {
    return []; // not written yet
  }
}

/** `heap used / physical, code space, outside the heap (malloc, external)` in one line of MiB. */
export function describeMemory(reading: MemoryReading | undefined): string {
  if (!reading) return 'no reading';
  const of = (r: HeapReading): string => {
    const code = r.spaces.code_space;
    return `heap used ${r.heapUsedMiB.toFixed(1)} of ${r.heapPhysicalMiB.toFixed(1)} physical (old ${(r.spaces.old_space?.physicalMiB ?? 0).toFixed(1)}, new ${(r.spaces.new_space?.physicalMiB ?? 0).toFixed(1)}, code ${(code?.physicalMiB ?? 0).toFixed(1)}, large ${(r.spaces.large_object_space?.physicalMiB ?? 0).toFixed(1)}), V8 malloc ${r.mallocedMiB.toFixed(1)}, external ${r.externalMiB.toFixed(1)}`;
  };
  const anonOutsideHeap = reading.rssAnonMiB - reading.before.heapPhysicalMiB;
  return `RSS anon ${reading.rssAnonMiB.toFixed(1)} (outside V8's heap ${anonOutsideHeap.toFixed(1)}) + file ${reading.rssFileMiB.toFixed(1)}; ${of(reading.before)}${reading.afterGc ? `; after a full GC: ${of(reading.afterGc)}` : ''}`;
}
