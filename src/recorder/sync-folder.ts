import { open } from 'node:fs/promises';

/** Makes the names in a folder durable (fsync of the folder), e.g. a new segment's. */
export async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* Folders cannot be opened or synced on every platform (Windows); the file's own sync still holds. */
  }
}
