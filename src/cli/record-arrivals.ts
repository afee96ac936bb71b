import { callsDirOf } from '../recorder/segment-files.js';
import { startFileWatcher } from '../watch/file-watcher.js';

/**
 * Wakes `calls --follow` when the data dir's call segments change (a file
 * watcher on the calls folder), or at the latest after `fallbackMs`: some
 * filesystems (network mounts, a folder not created yet) send no events.
 */
export interface RecordArrivals {
  /** Resolves once the watcher has scanned the folder (changes after it wake `next`). */
  ready: Promise<void>;
  /** Resolves at the next change, `wake()`, or after `fallbackMs`. */
  next(): Promise<void>;
  /** Ends the current wait at once (Ctrl-C). */
  wake(): void;
  close(): Promise<void>;
}

export function watchRecordArrivals(dataDir: string, options: { fallbackMs?: number } = {}): RecordArrivals {
  const fallbackMs = options.fallbackMs ?? 2_000;
  let wakeWaiter: (() => void) | undefined;
  let isChanged = false;
  const wake = (): void => {
    isChanged = true;
    wakeWaiter?.();
  };
  const watcher = startFileWatcher({ cwd: callsDirOf(dataDir), globs: ['*.jsonl'], debounceMs: 20, onChange: wake });
  return {
    ready: watcher.ready,
    next() {
      if (isChanged) {
        isChanged = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, fallbackMs);
        function done() {
          clearTimeout(timer);
          wakeWaiter = undefined;
          isChanged = false;
          resolve();
        }
        wakeWaiter = done;
      });
    },
    wake,
    close: () => watcher.close(),
  };
}
