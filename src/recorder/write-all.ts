import { writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Most buffers handed to one writev (IOV_MAX is 1024 on Linux). */
const MAX_IOV = 1_024;

/** Writes every byte of `lines` in as few writev calls as the OS allows (appending: O_APPEND). */
export async function writeAll(handle: FileHandle, lines: readonly Buffer[], bytes: number): Promise<void> {
  let rest: readonly Buffer[] = lines;
  let left = bytes;
  while (left > 0) {
    const { bytesWritten } = await handle.writev(firstChunk(rest));
    left -= tookSome(bytesWritten);
    rest = afterBytes(rest, bytesWritten);
  }
}

/**
 * `writeAll` on the calling thread: one writev syscall for a batch, no
 * thread-pool trip (see SegmentLog.appendNow for when that is right).
 * Throws the OS's error (ENOSPC, EIO, …); bytes before it may be written.
 */
export function writeAllNow(fd: number, lines: readonly Buffer[], bytes: number): void {
  let rest: readonly Buffer[] = lines;
  let left = bytes;
  while (left > 0) {
    const written = writevSync(fd, firstChunk(rest));
    left -= tookSome(written);
    rest = afterBytes(rest, written);
  }
}

function firstChunk(rest: readonly Buffer[]): Buffer[] {
  return (rest.length > MAX_IOV ? rest.slice(0, MAX_IOV) : rest) as Buffer[];
}

function tookSome(bytesWritten: number): number {
  if (bytesWritten <= 0) throw Object.assign(new Error('The disk took no bytes of a write.'), { code: 'EIO' });
  return bytesWritten;
}

/** The buffers that follow the first `count` bytes of `buffers`. */
export function afterBytes(buffers: readonly Buffer[], count: number): readonly Buffer[] {
  let skip = count;
  let i = 0;
  while (i < buffers.length && skip >= buffers[i]!.length) {
    skip -= buffers[i]!.length;
    i += 1;
  }
  if (i >= buffers.length) return [];
  const rest = buffers.slice(i);
  if (skip > 0) rest[0] = rest[0]!.subarray(skip);
  return rest;
}
