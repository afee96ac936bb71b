import { setImmediate as nextTurn } from 'node:timers/promises';
import { vi } from 'vitest';
import type { ManualClock } from './manual-clock.js';

export interface DriveClockOptions {
  /** Driving stops once this holds (checked whenever the real work settled). */
  until: () => boolean;
  /**
   * Nothing is in flight that real I/O will finish (a request that will be
   * answered, a registration): only then does time move on, so a timeout on
   * the clock never beats an answer that real time would have given first.
   */
  isSettled: () => boolean;
  /** Fails when `until` does not hold within this much time on the clock. */
  withinMs: number;
  /** How long real work may take to settle after a step. Default 5000 ms. */
  settleTimeoutMs?: number;
}

/**
 * Moves a manual clock on, timer by timer, while real things (loopback
 * servers, sockets) run in between: after each step it waits (on real time,
 * by event polling, no fixed sleep) until `isSettled`, then checks `until`.
 * Resolves with the clock time it took.
 */
export async function driveClock(clock: ManualClock, options: DriveClockOptions): Promise<number> {
  const startedAt = clock.now();
  const settleTimeoutMs = options.settleTimeoutMs ?? 5_000;
  for (;;) {
    await nextTurn();
    await vi.waitFor(
      () => {
        if (!options.isSettled()) throw new Error('real work still in flight');
      },
      { timeout: settleTimeoutMs, interval: 5 },
    );
    if (options.until()) return clock.now() - startedAt;
    const left = startedAt + options.withinMs - clock.now();
    if (left <= 0) throw new Error(`not done within ${options.withinMs} ms on the clock`);
    clock.advance(Math.min(left, clock.nextTimerIn() ?? left));
  }
}

/**
 * `vi.waitFor(assertion)` on a manual clock: each poll that finds the
 * assertion failing moves the clock on to its next timer, so real I/O gets a
 * poll's time between two timers (the cruder cousin of driveClock, for when
 * nothing tells whether real work is in flight). `interval` is that poll
 * (vi.waitFor's, default 50 ms): shorter where what runs between two timers
 * is quick loopback I/O.
 */
export async function waitForOnClock(clock: ManualClock, assertion: () => void, options: { timeout?: number; interval?: number } = {}): Promise<void> {
  await vi.waitFor(
    () => {
      try {
        assertion();
      } catch (error) {
        clock.advance(clock.nextTimerIn() ?? 0);
        throw error;
      }
    },
    { timeout: options.timeout ?? 10_000, interval: options.interval ?? 50 },
  );
}
