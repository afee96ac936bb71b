import { performance } from 'node:perf_hooks';
import { everyOnClock, systemClock, type Clock } from '../shared/clock.js';

export interface WakeDetectorOptions {
  /** How much longer than expected a tick may come, or how far the wall clock may run ahead, before it is a wake; 0: off. */
  jumpMs: number;
  /** How often it looks; default 10 s. */
  tickMs?: number;
  clock?: Clock;
  /**
   * The two clocks it compares. On real time: the monotonic clock
   * (`performance.now()`, which on Linux and macOS does not run while the
   * machine sleeps) and the wall clock (`Date.now()`, which does); on
   * another clock, both are its `now()`.
   */
  readMonotonic?: () => number;
  readWall?: () => number;
  onWake(gapMs: number): void;
}

/** Default tick: an idle daemon wakes for it 6 times a minute. */
export const WAKE_TICK_MS = 10_000;

/**
 * Sleep and wake, seen at the next tick after it:
 * - the machine slept: the wall clock ran on while the monotonic clock (and
 *   every timer on it) stood still, so between two ticks the wall clock
 *   moved `jumpMs` more than the monotonic one. The tick after a wake comes
 *   at most `tickMs` after it.
 * - the process was stopped (SIGSTOP, a paused VM) while both clocks ran: a
 *   tick comes `jumpMs` or more later than it was due. A stop that outlasts
 *   the tick it overlaps by `jumpMs` (every stop of `tickMs + jumpMs` or
 *   more) is seen at once; a shorter one may not be (the tunnel's probe finds
 *   what it broke). Event-loop lag under load is far below `jumpMs`.
 * A wall clock set back is no sleep; one set forward by `jumpMs` or more is
 * taken for one (the tunnel reopens once).
 */
export function startWakeDetector(options: WakeDetectorOptions): { stop(): void } {
  if (options.jumpMs <= 0) return { stop: () => undefined };
  const clock = options.clock ?? systemClock;
  const isRealTime = clock === systemClock;
  const readMonotonic = options.readMonotonic ?? (isRealTime ? () => performance.now() : () => clock.now());
  const readWall = options.readWall ?? (isRealTime ? () => Date.now() : () => clock.now());
  const tickMs = options.tickMs ?? WAKE_TICK_MS;
  let lastMonotonic = readMonotonic();
  let lastWall = readWall();
  const tick = everyOnClock(clock, tickMs, () => {
    const monotonic = readMonotonic();
    const wall = readWall();
    const monotonicGap = monotonic - lastMonotonic;
    const wallGap = wall - lastWall;
    lastMonotonic = monotonic;
    lastWall = wall;
    if (wallGap - monotonicGap >= options.jumpMs) options.onWake(wallGap);
    else if (monotonicGap - tickMs >= options.jumpMs) options.onWake(monotonicGap);
  });
  return { stop: () => tick.cancel() };
}
