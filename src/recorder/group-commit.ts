import type { Clock } from '../shared/clock.js';

/** This many waiting records are written without waiting out the group commit time. */
export const GROUP_COMMIT_RECORDS = 128;

/**
 * The group commit: under concurrent load (the last write took more than
 * one record), a write starts at most `ms` after the last one started, so
 * the records that arrive meanwhile share it and its sync (each sync costs
 * the disk, the kernel and a thread-pool trip). 0 never waits.
 */
export class GroupCommit {
  /** When the last write started, and how many records it took. */
  private lastWriteAt = 0;
  private lastWriteRecords = 0;
  /** Ends the wait early (set while it runs). */
  private endWait: (() => void) | undefined;

  constructor(
    private readonly ms: number,
    private readonly clock: Clock,
  ) {}

  get waits(): boolean {
    return this.ms > 0;
  }

  /** A write of `records` starts now. */
  writing(records: number): void {
    this.lastWriteAt = this.clock.now();
    this.lastWriteRecords = records;
  }

  /** `waiting` records wait now: enough of them end a wait that runs. */
  queued(waiting: number): void {
    if (this.endWait && waiting >= GROUP_COMMIT_RECORDS) this.endWait();
  }

  /** Waits until the next write may start (at once when it comes alone, or `waiting` is enough). */
  async gather(waiting: number): Promise<void> {
    if (this.ms === 0 || this.lastWriteRecords < 2 || waiting >= GROUP_COMMIT_RECORDS) return;
    // At most ms, even when the wall clock was set back meanwhile.
    const wait = Math.min(this.ms, this.lastWriteAt + this.ms - this.clock.now());
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      // Keeps the process alive: appends are waiting on it, and it ends within ms.
      const timer = this.clock.setTimer(done, wait, { keepsProcessAlive: true });
      function done(): void {
        timer.cancel();
        resolve();
      }
      this.endWait = done;
    });
    this.endWait = undefined;
  }
}
