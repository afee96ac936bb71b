import { errorCode, type Clock, type ClockTimer, type Logger } from '../shared/index.js';

/**
 * Hands back to the OS the memory a burst of calls made the daemon's heap
 * take, once the calls stop: a tool kept open all day should be as small
 * between bursts as it was before them.
 *
 * Under load V8 holds the working set of the calls: both semi-spaces of the
 * young generation, the old generation's headroom up to its next collection
 * (swept pages keep their free space resident), and pooled pages. Its own
 * memory reducer gives little of it back (measured: a 2-minute soak at 250
 * calls/s stayed +15 MiB over its start 30 s after the last call). One
 * collection of everything it can free, memory reduced (what V8 does on a
 * low-memory notification: ~36 ms for the daemon's ~20 MB heap), took the
 * same daemon from +15.4 to +2.8 MiB at once.
 *
 * So: once no call has come for `quietMs`, and the heap's physical size has
 * grown `growthBytes` since the last time (or the start), it is collected so.
 * A call every few seconds (a developer at work) never grows it that much;
 * a steady stream of calls never leaves a quiet second. Per call this costs
 * one `now()`; an idle daemon has no timer.
 */
export const RECLAIM_QUIET_MS = 1_000;
export const RECLAIM_GROWTH_BYTES = 4 * 1024 * 1024;

export interface BurstReclaimOptions {
  clock: Clock;
  /** The heap's physical size now (v8.getHeapStatistics().total_physical_size). */
  heapBytes(): number;
  /** Collects all the garbage it can, memory reduced (collectAllGarbage). */
  reclaim(): Promise<void>;
  logger: Logger;
  quietMs?: number;
  growthBytes?: number;
}

export interface BurstReclaimer {
  /** A call came (its record is written): the quiet second starts again. */
  noteCall(): void;
  /** No timer is left; nothing is collected from now on (idempotent). */
  close(): void;
}

export function reclaimAfterBursts(options: BurstReclaimOptions): BurstReclaimer {
  const { clock, logger } = options;
  const quietMs = options.quietMs ?? RECLAIM_QUIET_MS;
  const growthBytes = options.growthBytes ?? RECLAIM_GROWTH_BYTES;
  let baseline = options.heapBytes();
  let lastCallAt = clock.now();
  let timer: ClockTimer | undefined;
  let isReclaiming = false;
  let isClosed = false;

  const whenQuiet = (): void => {
    timer = undefined;
    if (isClosed || isReclaiming) return;
    const quietFor = clock.now() - lastCallAt;
    // A call came meanwhile: wait for the rest of its quiet second (a clock that went back waits a whole one).
    if (quietFor < quietMs) {
      timer = clock.setTimer(whenQuiet, quietFor >= 0 ? quietMs - quietFor : quietMs);
      return;
    }
    const before = options.heapBytes();
    // The heap shrank by itself (V8's memory reducer): growth counts from there.
    if (before < baseline) baseline = before;
    if (before - baseline < growthBytes) return;
    isReclaiming = true;
    options
      .reclaim()
      .then(() => {
        const after = options.heapBytes();
        logger.debug(`Handed back the memory of a burst of calls: the heap's resident size ${mib(before)} → ${mib(after)} MiB.`);
      })
      .catch((error: unknown) => {
        // Nothing is lost but memory: the next burst tries again.
        logger.debug(`Could not hand back the memory of a burst of calls (${errorCode(error) ?? String(error)}).`);
      })
      .finally(() => {
        isReclaiming = false;
        baseline = options.heapBytes();
      });
  };

  return {
    noteCall() {
      if (isClosed) return;
      lastCallAt = clock.now();
      timer ??= clock.setTimer(whenQuiet, quietMs);
    },
    close() {
      isClosed = true;
      timer?.cancel();
      timer = undefined;
    },
  };
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

/**
 * Every collectable object collected, memory reduced, and freed pages given
 * back: V8's low-memory notification, asked for through the inspector
 * protocol's `HeapProfiler.collectGarbage` on a session of this thread (no
 * `--expose-gc`). `node:inspector` loads on first use. The session is
 * disconnected on the next turn: disconnecting inside its own reply's
 * callback left Node 20 unable to exit.
 */
export async function collectAllGarbage(): Promise<void> {
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) => {
      session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve()));
    });
  } finally {
    setImmediate(() => session.disconnect());
  }
}
