import { performance } from 'node:perf_hooks';

/**
 * Sleep and wake: a 1 s tick that finds far more than 1 s passed means this
 * process did not run (the laptop slept, SIGSTOP). Measured on the real
 * monotonic clock. `jumpMs` 0: off.
 */
export function startWakeDetector(options: { jumpMs: number; onWake(gapMs: number): void }): { stop(): void } {
  if (options.jumpMs <= 0) return { stop: () => undefined };
  let lastTick = performance.now();
  const clock = setInterval(() => {
    const at = performance.now();
    const gapMs = at - lastTick;
    lastTick = at;
    if (gapMs >= options.jumpMs) options.onWake(gapMs);
  }, 1_000);
  clock.unref();
  return { stop: () => clearInterval(clock) };
}
