/**
 * The floor of storing a call record, for the proxy bench's `written`
 * scenario: each record's JSON line appended to one file, every record of a
 * turn in one writev on the main thread, as the real recorder writes them
 * with `os` durability, and nothing else: no masking, no call index, no
 * link-count check, no rotation, retention or sync. What the recorder costs
 * above this is its own work; what this costs is the least any recorder
 * that stores each call pays.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { writeAllNow } from '../src/recorder/write-all.js';

export interface RawRecordWriter {
  /** Resolves once the line is written (in the turn it was handed over). */
  append(record: unknown): Promise<void>;
  close(): void;
}

export function openRawRecordWriter(path: string): RawRecordWriter {
  let fd: number | undefined = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  let lines: Buffer[] = [];
  let done: Array<() => void> = [];
  let isDue = false;
  const write = (): void => {
    isDue = false;
    const batch = lines;
    const wake = done;
    lines = [];
    done = [];
    let bytes = 0;
    for (const line of batch) bytes += line.length;
    if (fd !== undefined) writeAllNow(fd, batch, bytes);
    for (const resolve of wake) resolve();
  };
  return {
    append(record) {
      return new Promise<void>((resolve) => {
        lines.push(Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'));
        done.push(resolve);
        if (!isDue) {
          isDue = true;
          queueMicrotask(write);
        }
      });
    },
    close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}
