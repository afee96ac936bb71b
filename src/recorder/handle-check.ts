import { fstatSync } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';

/** The open segment is compared with the file at its path at most this often (a cheap link count check runs every batch). */
const HANDLE_CHECK_MS = 1_000;

/**
 * Whether the open segment handle still is the file at its segment's path:
 * the calls folder (or the segment) can be deleted, moved or replaced while
 * the daemon runs, and writing on would put every record into a file nobody
 * reads.
 *
 * Every batch: the handle's link count (one fstat on the calling thread,
 * ~1.5 µs measured; no thread-pool trip): a deleted segment, or one whose
 * folder was deleted, has none left. Nothing cheaper proves a write still
 * lands in a file readers find (a watcher's event comes after the write it
 * should have stopped). At most once a second: the handle against the file
 * at its path (a moved or replaced folder), on the thread pool.
 */
export class HandleCheck {
  private checkedAt = 0;

  constructor(private readonly now: () => number) {}

  /** The handle was just opened by its path: it is the file there. */
  opened(): void {
    this.checkedAt = this.now();
  }

  /** The link count check: true when the file has no name left, or the handle is unusable. */
  isUnlinked(handle: FileHandle): boolean {
    try {
      return fstatSync(handle.fd).nlink === 0;
    } catch {
      return true; // the handle is unusable: open the segment again
    }
  }

  /** Whether the once-a-second comparison with the path is due (also when the wall clock went back). */
  isPathCheckDue(): boolean {
    const at = this.now();
    return at - this.checkedAt >= HANDLE_CHECK_MS || at < this.checkedAt;
  }

  /** Both checks, the path one when due: true when the handle no longer is the file at `path`. */
  async isGone(handle: FileHandle, path: string): Promise<boolean> {
    if (this.isUnlinked(handle)) return true;
    if (!this.isPathCheckDue()) return false;
    this.checkedAt = this.now();
    try {
      const [opened, named] = await Promise.all([handle.stat(), stat(path)]);
      return opened.ino !== named.ino || opened.dev !== named.dev;
    } catch {
      return true; // the path is gone, or no longer leads to a file: either way not our file
    }
  }
}
