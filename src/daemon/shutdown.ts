import type { Logger } from '../shared/logger.js';

/** How each running part closes; a part not started (yet) has none. */
export interface RunningParts {
  tunnel?: () => Promise<void>;
  /** The watch on the emulator's held approvals. */
  approvals?: () => Promise<void>;
  watcher?: () => Promise<void>;
  queue?: () => Promise<void>;
  child?: () => Promise<void>;
  inspector?: () => Promise<void>;
  control?: () => Promise<void>;
  proxy?: () => Promise<void>;
  recorder?: () => Promise<void>;
  /** The dev server's log file: written to the end once the dev server stopped. */
  devServerLog?: () => Promise<void>;
  /** The tools URL's note in the data dir, when one is still being written. */
  toolsUrlNote?: () => Promise<void>;
  /** The data dir's lock: released last, once nothing writes there any more. */
  lock?: () => Promise<void>;
}

/** The order parts close in: nothing new comes in, the running task ends, then the rest in reverse order of need. */
const CLOSE_ORDER: ReadonlyArray<[keyof RunningParts, string]> = [
  ['tunnel', 'tunnel'],
  ['approvals', "emulator's approvals watch"],
  ['watcher', 'file watcher'],
  ['queue', 'task queue'],
  ['child', 'dev server'],
  ['inspector', 'inspector'],
  ['control', 'control channel'],
  ['proxy', 'proxy'],
  ['recorder', 'recorder'],
  ['devServerLog', 'dev server log'],
  ['toolsUrlNote', "tools URL's note"],
  ['lock', 'data dir lock'],
];

/**
 * Stops the daemon: aborts what waits (a heal's route wait, a retry), then
 * closes every running part in CLOSE_ORDER; a part that fails to close is
 * logged and the next one closes all the same. Idempotent.
 */
export function createShutdown(running: RunningParts, options: { abort(): void; logger: Logger }): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      options.abort();
      for (const [part, name] of CLOSE_ORDER) {
        try {
          await running[part]?.();
        } catch (error) {
          options.logger.warn(`closing the ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
    return closing;
  };
}
