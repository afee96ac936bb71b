/**
 * Preloaded (`NODE_OPTIONS=--import <this file>`) into the process a soak
 * measures, to say what its RSS is made of: on SIGUSR2 it appends one JSON
 * line to MEDIAN_DEV_SOAK_MEMORY_FILE with process.memoryUsage() and V8's
 * heap statistics per space (code space apart). When `<file>.gc` exists it
 * is removed and the reading is taken after a full collection too (the live
 * size), which changes the heap from then on: the soaks ask for it last.
 * Nothing else is changed; a signal handle does not keep the process alive.
 */
import { existsSync, appendFileSync, rmSync } from 'node:fs';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.MEDIAN_DEV_SOAK_MEMORY_FILE ?? '';

function reading(): Record<string, unknown> {
  const usage = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  const spaces: Record<string, { sizeMiB: number; usedMiB: number; physicalMiB: number }> = {};
  for (const space of v8.getHeapSpaceStatistics()) {
    spaces[space.space_name] = { sizeMiB: space.space_size / 2 ** 20, usedMiB: space.space_used_size / 2 ** 20, physicalMiB: space.physical_space_size / 2 ** 20 };
  }
  return {
    rssMiB: usage.rss / 2 ** 20,
    heapTotalMiB: usage.heapTotal / 2 ** 20,
    heapUsedMiB: usage.heapUsed / 2 ** 20,
    heapPhysicalMiB: heap.total_physical_size / 2 ** 20,
    externalMiB: usage.external / 2 ** 20,
    arrayBuffersMiB: usage.arrayBuffers / 2 ** 20,
    mallocedMiB: heap.malloced_memory / 2 ** 20,
    spaces,
  };
}

if (file !== '') {
  process.on('SIGUSR2', () => {
    const line: Record<string, unknown> = { at: Date.now(), before: reading() };
    if (existsSync(`${file}.gc`)) {
      rmSync(`${file}.gc`, { force: true });
      v8.setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as () => void)();
      line.afterGc = reading();
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
