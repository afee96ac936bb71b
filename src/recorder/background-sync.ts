import { errorCode, type Logger } from '../shared/index.js';
import type { Clock, ClockTimer } from '../shared/clock.js';

/**
 * With `os` durability, what was written is synced to the disk (one
 * fdatasync, on the thread pool) at most this long after the first write
 * since the last sync: the most a power cut or OS crash can lose. A crash or
 * kill -9 of median-dev loses nothing whatever the bound (the OS holds every
 * written record). One second is the bound databases that sync in the
 * background commonly pick (Redis's `appendfsync everysec`, MongoDB's
 * journal at 100 ms–1 s), and a sync a second costs nothing measurable.
 */
export const DISK_SYNC_BOUND_MS = 1_000;

export interface BackgroundSyncOptions {
  clock: Clock;
  logger: Logger;
  /** Where the records are, for the warning. */
  dir: string;
  /** Syncs what was written (a no-op when nothing was). */
  sync(): Promise<void>;
  /** Whether bytes were written since the last sync. */
  hasUnsynced(): boolean;
}

/**
 * The background disk sync: `written()` after each write makes one due
 * within the bound (one timer for every write until it runs); bytes written
 * while it runs, or left by a failed sync, make the next one due. The timer
 * is unref'd: a process that ends without `stop()` still has every record
 * in the OS.
 */
export class BackgroundSync {
  private timer: ClockTimer | undefined;
  private isStopped = false;
  /** True while the last sync failed (said once). */
  private isFailing = false;

  constructor(private readonly options: BackgroundSyncOptions) {}

  written(): void {
    if (this.timer || this.isStopped) return;
    this.timer = this.options.clock.setTimer(() => this.run(), DISK_SYNC_BOUND_MS);
  }

  /** Cancels the timer; a sync that runs finishes (the store's close syncs after it). Idempotent. */
  stop(): void {
    this.isStopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    const { logger, dir } = this.options;
    this.options
      .sync()
      .then(
        () => {
          if (this.isFailing) logger.info('Syncing recorded calls to the disk works again.', { dir });
          this.isFailing = false;
        },
        (error: unknown) => {
          if (!this.isFailing) logger.warn(`Could not sync the recorded calls in ${dir} to the disk; they are written, but a power cut could lose them.`, { dir, reason: errorCode(error) });
          this.isFailing = true;
        },
      )
      .finally(() => {
        if (this.options.hasUnsynced()) this.written();
      });
  }
}
