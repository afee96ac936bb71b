/**
 * Waits `ms` (an unref'd timer: a pending wait never keeps the process
 * alive). With `signal`, an abort ends the wait at once: `pause` then
 * resolves (the caller checks the signal), `delayOrAbort` rejects with the
 * signal's reason.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return delayOrAbort(ms, signal).catch(() => undefined);
}

export function delayOrAbort(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(done, ms);
    timer.unref();
    function done(): void {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
