import { MedianDevError } from '../shared/errors.js';

/**
 * Runs daemon tasks one at a time (a URL change must finish writing the env
 * file, restarting the child and fixing the endpoint before the next starts).
 */
export interface SerialQueue {
  /** Queues a task; resolves once it ran; its error goes to onError (none once closed). */
  push(task: () => Promise<void>): Promise<void>;
  /** Queues a task and returns its outcome. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Waits for the running task; drops the queued ones. */
  close(): Promise<void>;
}

export function createSerialQueue(onError: (error: unknown) => void): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  let isClosed = false;
  const run = <T>(task: () => Promise<T>): Promise<T> => {
    const next = tail.then(() => {
      if (isClosed) throw new MedianDevError('daemon_closed', 'The daemon is closing.');
      return task();
    });
    tail = next.catch(() => undefined);
    return next;
  };
  return {
    push(task) {
      return run(task).catch((error: unknown) => {
        if (!isClosed) onError(error);
      });
    },
    run,
    async close() {
      isClosed = true;
      await tail;
    },
  };
}
