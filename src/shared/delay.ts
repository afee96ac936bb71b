import { systemClock, type Clock } from './clock.js';

/**
 * Waits `ms` on `clock` (real time by default, an unref'd timer: a pending
 * wait never keeps the process alive). With `signal`, an abort ends the wait
 * at once: `pause` then resolves (the caller checks the signal),
 * `delayOrAbort` rejects with the signal's reason.
 */
export function pause(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return delayOrAbort(ms, signal, clock).catch(() => undefined);
}

export function delayOrAbort(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = clock.setTimer(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort(): void {
      timer.cancel();
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
