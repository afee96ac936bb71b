/**
 * Asks the store (in a worker thread, see store-check-worker.ts) which of
 * the answered calls it holds. One check at a time; each has a deadline.
 */
import { Worker } from 'node:worker_threads';
import type { StoreCheckAnswer, StoreCheckRequest } from './store-check-worker.js';

export type { StoreCheckAnswer } from './store-check-worker.js';

export interface StoreChecker {
  check(wanted: string[]): Promise<StoreCheckAnswer>;
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 120_000;

export function startStoreChecker(dataDir: string): StoreChecker {
  const worker = new Worker(new URL('./store-check-worker.js', import.meta.url));
  worker.unref();
  let seq = 0;
  let queue: Promise<unknown> = Promise.resolve();
  let workerError: Error | undefined;
  worker.on('error', (error) => {
    workerError = error;
  });

  const once = (wanted: string[]): Promise<StoreCheckAnswer> =>
    new Promise((resolve, reject) => {
      if (workerError) {
        reject(workerError);
        return;
      }
      seq += 1;
      const mine = seq;
      const onMessage = (answer: StoreCheckAnswer): void => {
        if (answer.seq !== mine) return;
        cleanup();
        if (answer.error) reject(new Error(`Reading the store failed: ${answer.error}`));
        else resolve(answer);
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(error);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Reading the store took more than ${CHECK_TIMEOUT_MS} ms.`));
      }, CHECK_TIMEOUT_MS);
      function cleanup(): void {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      }
      worker.on('message', onMessage);
      worker.on('error', onError);
      const request: StoreCheckRequest = { seq: mine, dataDir, wanted };
      worker.postMessage(request);
    });

  return {
    check(wanted) {
      const next = queue.then(() => once(wanted));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await worker.terminate();
    },
  };
}
