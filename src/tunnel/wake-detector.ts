import { performance } from 'node:perf_hooks';
import { everyOnClock, systemClock, type Clock } from '../shared/clock.js';

/**
 * Sleep and wake: a tick (every 2 s, or half of `jumpMs` when that is less)
 * that finds far more than that passed means this process did not run (the
 * laptop slept, SIGSTOP). On real time the gap is measured on the monotonic
 * clock (a wall clock set back or forward is no sleep); on another clock, by
 * its `now()`. `jumpMs` 0: off. 2 s, not 1 s: an idle daemon wakes up as
 * little as it can.
 */
export function startWakeDetector(options: { jumpMs: number; clock?: Clock; onWake(gapMs: number): void }): { stop(): void } {
  if (options.jumpMs <= 0) return { stop: () => undefined };
  const clock = options.clock ?? systemClock;
  const read = clock === systemClock ? () => performance.now() : () => clock.now();
  let lastTick = read();
  const tick = everyOnClock(clock, Math.min(2_000, options.jumpMs / 2), () => {
    const at = read();
    const gapMs = at - lastTick;
    lastTick = at;
    if (gapMs >= options.jumpMs) options.onWake(gapMs);
  });
  return { stop: () => tick.cancel() };
}
