import { performance } from 'node:perf_hooks';

/**
 * Sleep and wake: a tick (every 2 s, or half of `jumpMs` when that is less)
 * that finds far more than that passed means this process did not run (the
 * laptop slept, SIGSTOP). Measured on the real monotonic clock. `jumpMs` 0:
 * off. 2 s, not 1 s: an idle daemon wakes up as little as it can.
 */
export function startWakeDetector(options: { jumpMs: number; onWake(gapMs: number): void }): { stop(): void } {
  if (options.jumpMs <= 0) return { stop: () => undefined };
  let lastTick = performance.now();
  const clock = setInterval(() => {
    const at = performance.now();
    const gapMs = at - lastTick;
    lastTick = at;
    if (gapMs >= options.jumpMs) options.onWake(gapMs);
  }, Math.min(2_000, options.jumpMs / 2));
  clock.unref();
  return { stop: () => clearInterval(clock) };
}
