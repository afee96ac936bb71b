/**
 * A repeating timer that runs only while there is work: `start()` (cheap to
 * call on every new piece of work) arms it, and the first tick that finds
 * `hasWork()` false stops it, so an idle process is not woken. Unref'd;
 * `stop()` is idempotent and leaves no timer.
 */
export interface WorkInterval {
  start(): void;
  stop(): void;
}

export function createWorkInterval(ms: number, hasWork: () => boolean, run: () => void): WorkInterval {
  let timer: NodeJS.Timeout | undefined;
  let isStopped = false;
  const tick = (): void => {
    if (!hasWork()) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    run();
  };
  return {
    start() {
      if (timer || isStopped) return;
      timer = setInterval(tick, ms);
      timer.unref();
    },
    stop() {
      isStopped = true;
      clearInterval(timer);
      timer = undefined;
    },
  };
}
