import { describe, expect, it } from 'vitest';
import { reclaimAfterBursts, RECLAIM_GROWTH_BYTES, RECLAIM_QUIET_MS, type BurstReclaimer } from '../../../src/cli/reclaim-after-bursts.js';
import { silentLogger, type Logger } from '../../../src/shared/index.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';

const MiB = 2 ** 20;

interface Rig {
  clock: ManualClock;
  reclaimer: BurstReclaimer;
  heap: { bytes: number };
  reclaims: number[];
  debug: string[];
}

function rig(options: { fails?: boolean; shrinksTo?: number } = {}): Rig {
  const clock = createManualClock();
  const heap = { bytes: 20 * MiB };
  const reclaims: number[] = [];
  const debug: string[] = [];
  const logger: Logger = { ...silentLogger, debug: (message) => void debug.push(message) };
  const reclaimer = reclaimAfterBursts({
    clock,
    logger,
    heapBytes: () => heap.bytes,
    reclaim: async () => {
      reclaims.push(clock.now());
      if (options.fails) throw Object.assign(new Error('no inspector'), { code: 'ERR_INSPECTOR_NOT_AVAILABLE' });
      heap.bytes = options.shrinksTo ?? 21 * MiB;
    },
  });
  return { clock, reclaimer, heap, reclaims, debug };
}

/** Lets the reclaim's promise chain settle (it runs on microtasks, not on the clock). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

/** A call every `everyMs` for `count` calls, the heap growing by `growth` over them. */
function burst(r: Rig, count: number, everyMs: number, growth: number): void {
  for (let i = 0; i < count; i += 1) {
    r.reclaimer.noteCall();
    r.heap.bytes += growth / count;
    r.clock.advance(everyMs);
  }
}

describe('reclaimAfterBursts', () => {
  it('collects once the calls have been quiet for a second, after the heap grew', async () => {
    const r = rig();
    burst(r, 500, 4, 12 * MiB); // 2 s of calls, 250 a second
    expect(r.reclaims).toEqual([]); // never while the calls keep coming
    const lastCallAt = r.clock.now() - 4;
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toEqual([lastCallAt + RECLAIM_QUIET_MS]);
    expect(r.debug).toEqual(["Handed back the memory of a burst of calls: the heap's resident size 32.0 → 21.0 MiB."]);
    expect(r.clock.pendingTimers()).toBe(0); // an idle daemon has no timer
  });

  it('leaves a heap alone that grew less than the threshold (a developer calling now and then)', async () => {
    const r = rig();
    for (let i = 0; i < 20; i += 1) {
      burst(r, 1, 5_000, RECLAIM_GROWTH_BYTES / 40);
      await settle();
    }
    expect(r.reclaims).toEqual([]);
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('counts growth from after the last collection: one per burst, none for a quiet second without new growth', async () => {
    const r = rig({ shrinksTo: 21 * MiB });
    burst(r, 300, 4, 10 * MiB);
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(1);
    burst(r, 10, 4, 1 * MiB); // a few calls: 22 MiB, 1 over the new baseline
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(1);
    burst(r, 300, 4, 5 * MiB); // a second burst: 27 MiB, 6 over it
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(2);
  });

  it('measures growth from where the heap shrank by itself', async () => {
    const r = rig();
    r.heap.bytes = 10 * MiB; // V8's own reducer gave 10 MiB back
    burst(r, 10, 4, 0);
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toEqual([]);
    burst(r, 300, 4, RECLAIM_GROWTH_BYTES + MiB); // 15 MiB: under the start's 20, but grown 5 since the low
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(1);
  });

  it('waits a whole quiet second when the clock went back', async () => {
    const r = rig();
    burst(r, 300, 4, 10 * MiB);
    r.reclaimer.noteCall();
    const clock = r.clock as ManualClock & { now(): number };
    const realNow = clock.now.bind(clock);
    let offset = 0;
    clock.now = () => realNow() + offset;
    r.reclaimer.noteCall(); // the call was noted at the clock's time…
    offset = -5_000; // …and then the wall clock stepped back
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toEqual([]);
    expect(r.clock.pendingTimers()).toBe(1);
    offset = 0;
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(1);
  });

  it('survives a collection that fails, and tries again after the next burst', async () => {
    const r = rig({ fails: true });
    burst(r, 300, 4, 10 * MiB);
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(1);
    expect(r.debug).toEqual(['Could not hand back the memory of a burst of calls (ERR_INSPECTOR_NOT_AVAILABLE).']);
    burst(r, 300, 4, 10 * MiB);
    r.clock.advance(RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toHaveLength(2);
  });

  it('leaves no timer after close(), collects nothing more, and closes twice', async () => {
    const r = rig();
    burst(r, 300, 4, 10 * MiB);
    expect(r.clock.pendingTimers()).toBe(1);
    r.reclaimer.close();
    r.reclaimer.close();
    expect(r.clock.pendingTimers()).toBe(0);
    r.reclaimer.noteCall();
    r.clock.advance(10 * RECLAIM_QUIET_MS);
    await settle();
    expect(r.reclaims).toEqual([]);
    expect(r.clock.pendingTimers()).toBe(0);
  });
});
