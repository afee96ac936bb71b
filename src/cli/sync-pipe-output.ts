import { EventEmitter } from 'node:events';
import { fstatSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { errorCode } from '../shared/errors.js';

/**
 * The file descriptor is a pipe (`show … | jq`), a socket (what a Node parent's `stdio: 'pipe'` gives a child: a
 * socket pair) or a regular file (`show … > call.json`, which Node writes synchronously too: its SyncWriteStream).
 * A terminal or a device is not: telling a terminal from /dev/null needs node:tty, which costs what this saves.
 */
export function isSyncWritable(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFIFO() || stats.isSocket() || stats.isFile();
  } catch {
    return false; // closed or not a file: Node's own stream decides what it is
  }
}

export interface SyncPipeOutputOptions {
  /** A write failed (EPIPE: the reader went away); called once, later writes are dropped. */
  onError(error: NodeJS.ErrnoException): void;
  /** The process's own stream for this fd: what is left of a write that would block goes there, and every later write. */
  fallback(): Writable;
}

/**
 * stdout or stderr of a command that writes its answer and exits (`show`),
 * when it is a pipe or a file (isSyncWritable): written with synchronous
 * writes to the descriptor instead of through process.stdout. Node makes a
 * pipe's (or socket's) process.stdout a net.Socket, and a file's a
 * SyncWriteStream; creating either loads net or Node's streams: with the
 * bin's V8 options (no code cache for built-ins) 10–20 ms of every such run. Node writes both synchronously on Linux too (its docs:
 * "Pipes (and sockets): synchronous on Linux"), so the reader gets the same
 * bytes at the same moments. A pipe that would block (a non-blocking descriptor, a full
 * pipe) hands the rest, and every later write, to the process's own stream,
 * in order; a failed write (EPIPE) goes to `onError` as that stream's error
 * event would.
 */
export function syncPipeOutput(fd: number, options: SyncPipeOutputOptions): Writable {
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
    isTTY: false,
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
