import { EventEmitter } from 'node:events';
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { errorCode } from '../shared/errors.js';

export interface SyncOutputOptions {
  /** A terminal (outputDeviceOf): what the command's colours go by. Default false. */
  isTTY?: boolean;
  /** A write failed (EPIPE: the reader went away); called once, later writes are dropped. */
  onError(error: NodeJS.ErrnoException): void;
  /** The process's own stream for this fd: what is left of a write that would block goes there, and every later write. */
  fallback(): Writable;
}

/**
 * stdout or stderr of a command that writes its answer and exits (`show`),
 * when it is a pipe, a file or a terminal (src/platform/output-device.ts):
 * written with synchronous writes to the descriptor instead of through
 * process.stdout. Node makes a pipe's (or socket's) process.stdout a
 * net.Socket, a file's a SyncWriteStream and a terminal's a tty.WriteStream;
 * creating any loads net or Node's streams: with the bin's V8 options (no
 * code cache for built-ins) 10–20 ms of every such run. Node's own streams
 * write files and terminals synchronously on POSIX too (its docs, "A note on
 * process I/O"), so those get the same bytes at the same moments; a pipe's
 * would be written asynchronously, and for a command that writes one answer
 * and exits, written at once is what it needs (nothing is left to lose at
 * the exit). A pipe that would block (a non-blocking descriptor, a full
 * pipe) hands the rest, and every later write, to the process's own stream,
 * in order; a failed write (EPIPE) goes to `onError` as that stream's error
 * event would.
 */
export function syncOutput(fd: number, options: SyncOutputOptions): Writable {
  let hasFailed = false;
  let stream: Writable | undefined;
  const writeBytes = (bytes: Buffer): void => {
    let written = 0;
    while (stream === undefined && written < bytes.length) {
      try {
        written += writeSync(fd, bytes, written);
      } catch (error) {
        if (errorCode(error) !== 'EAGAIN') throw error;
        stream = options.fallback();
      }
    }
    if (stream !== undefined && written < bytes.length) stream.write(bytes.subarray(written));
  };
  const write = (chunk: unknown, encodingOrDone?: unknown, maybeDone?: unknown): boolean => {
    const done = typeof encodingOrDone === 'function' ? encodingOrDone : maybeDone;
    if (stream !== undefined) return (stream.write as (...args: unknown[]) => boolean)(chunk, encodingOrDone, maybeDone);
    if (!hasFailed && chunk !== undefined && chunk !== null) {
      const encoding = typeof encodingOrDone === 'string' ? (encodingOrDone as BufferEncoding) : 'utf8';
      try {
        writeBytes(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array));
      } catch (error) {
        hasFailed = true;
        options.onError(error as NodeJS.ErrnoException);
      }
    }
    if (typeof done === 'function') (done as () => void)();
    return true;
  };
  const output = Object.assign(new EventEmitter(), {
    fd,
    isTTY: options.isTTY === true,
    writable: true,
    write,
    end(chunk?: unknown, encodingOrDone?: unknown, maybeDone?: unknown) {
      if (typeof chunk === 'function') (chunk as () => void)();
      else write(chunk, encodingOrDone, maybeDone);
      return output;
    },
  });
  return output as unknown as Writable;
}
