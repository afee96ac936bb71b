/**
 * Time as a dependency: what reads the time or waits for it takes a `Clock`,
 * so a test can drive minutes and hours in milliseconds. Real time
 * (`systemClock`) is the default everywhere. Kept small on purpose: `now()`
 * and one-shot timers, the two things a time-driven part needs.
 */
export interface ClockTimer {
  /** Stops the timer; idempotent. */
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  /**
   * Runs `run` once, `ms` from now. The timer never keeps the process alive
   * (real timers are `unref()`ed), unless `keepsProcessAlive`: a short wait
   * that work in progress must get past before the process may exit.
   */
  setTimer(run: () => void, ms: number, options?: { keepsProcessAlive?: boolean }): ClockTimer;
}

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimer(run: () => void, ms: number, options?: { keepsProcessAlive?: boolean }): ClockTimer {
    const timer = setTimeout(run, Math.max(0, ms));
    if (!options?.keepsProcessAlive) timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
});

/** A repeating timer on a clock: `run` every `ms` until cancelled. */
export function everyOnClock(clock: Clock, ms: number, run: () => void): ClockTimer {
  let current: ClockTimer | undefined;
  let isCancelled = false;
  const schedule = (): void => {
    current = clock.setTimer(() => {
      if (isCancelled) return;
      schedule();
      run();
    }, ms);
  };
  schedule();
  return {
    cancel() {
      isCancelled = true;
      current?.cancel();
    },
  };
}
