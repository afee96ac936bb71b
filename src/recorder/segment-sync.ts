import type { FileHandle } from 'node:fs/promises';

/**
 * The bytes of the live segment that were written to the OS but not yet
 * fdatasync'ed, and those datasyncs (on the thread pool): one at a time, in
 * order, so a handle is never closed under one, and bytes written while one
 * runs stay counted for the next.
 */
export class SegmentSync {
  private unsynced = 0;
  private lastAt: number | undefined;
  private chain: Promise<void> = Promise.resolve();
  private syncing = false;

  constructor(private readonly now: () => number) {}

  get unsyncedBytes(): number {
    return this.unsynced;
  }

  /** When a datasync last completed (undefined: none yet). */
  get lastSyncAt(): number | undefined {
    return this.lastAt;
  }

  /** Whether a datasync runs now (the kernel is writing the live segment's pages back). */
  get isSyncing(): boolean {
    return this.syncing;
  }

  /** `bytes` more were written (without O_DSYNC). */
  wrote(bytes: number): void {
    this.unsynced += bytes;
  }

  /** Datasyncs the handle open when its turn comes, if bytes were written since the last one. Rejects with the disk's error; the bytes then stay unsynced. */
  sync(liveHandle: () => FileHandle | undefined): Promise<void> {
    return this.inTurn(async () => {
      const handle = liveHandle();
      if (!handle || this.unsynced === 0) return;
      const bytes = this.unsynced;
      await this.datasync(handle);
      this.unsynced -= bytes;
      this.lastAt = this.now();
    });
  }

  /** Before `handle` is closed: datasyncs what was written to it; afterwards nothing counts as unsynced (the next handle starts clean). */
  flush(handle: FileHandle): Promise<void> {
    return this.inTurn(async () => {
      if (this.unsynced === 0) return;
      try {
        await this.datasync(handle);
        this.lastAt = this.now();
      } finally {
        this.unsynced = 0;
      }
    });
  }

  private async datasync(handle: FileHandle): Promise<void> {
    this.syncing = true;
    try {
      await handle.datasync();
    } finally {
      this.syncing = false;
    }
  }

  private inTurn(run: () => Promise<void>): Promise<void> {
    const next = this.chain.then(run);
    this.chain = next.catch(() => {
      /* The caller gets this failure; the next sync still runs. */
    });
    return next;
  }
}
