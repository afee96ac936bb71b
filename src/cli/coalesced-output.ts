import type { Writable } from 'node:stream';
import type { CliIo } from './cli-io.js';

/**
 * stdout and stderr of a daemon printing its events as lines (`start --json`,
 * `--no-tui`): a write goes out at once when the streams were quiet for
 * `windowMs`, and the writes that follow within that window go out together,
 * in one write, when it ends. Each write to a pipe wakes its reader (on
 * another core): at 250 calls/s, one `call` line a call, that wake-up was the
 * daemon's largest cost per call after the answer's own write. Every write
 * keeps its bytes and its place, across both streams (a write to one flushes
 * what waits for the other first); `flush()` writes what waits now, and the
 * returned io's `exit` and its crash handler flush before the process ends.
 * A write with a callback, or a non-UTF-8 string, goes out at once (after
 * what waits).
 */
export interface CoalescedOutput {
  io: CliIo;
  /** Writes what waits, now. */
  flush(): void;
  /** Flushes and stops coalescing: later writes go straight through. Idempotent. */
  close(): void;
}

export interface CoalescedOutputOptions {
  /** How long writes after one that went out are gathered before the next write. */
  windowMs: number;
  /** Gathered bytes that are written at once, window or not (default 64 KiB). */
  maxBytes?: number;
  /** Milliseconds, monotonic; tests pass their own. */
  now?: () => number;
}

type Chunk = string | Uint8Array;

/**
 * `start --json` / `--no-tui`: a line waits at most this long behind the one
 * before it. At a steady 250 calls/s that is about five `call` lines a write
 * instead of one; a reader sees a `call` line 20 ms late at the most. The
 * printer flushes after every other event (eventLinePrinter): the tunnel,
 * the endpoint or a heal is never held back.
 */
export const EVENT_LINES_WINDOW_MS = 20;

const DEFAULT_MAX_BYTES = 64 * 1024;

export function coalesceOutput(io: CliIo, options: CoalescedOutputOptions): CoalescedOutput {
  const now = options.now ?? (() => performance.now());
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let waiting: { stream: Writable; chunks: Chunk[]; bytes: number } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let isClosed = false;

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    const gathered = waiting;
    if (gathered === undefined) return;
    waiting = undefined;
    lastWriteAt = now();
    const { chunks } = gathered;
    const text = chunks.every((chunk) => typeof chunk === 'string')
      ? chunks.join('')
      : Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)));
    gathered.stream.write(text);
  }

  function gather(stream: Writable, chunk: Chunk): void {
    if (waiting !== undefined && waiting.stream !== stream) flush();
    waiting ??= { stream, chunks: [], bytes: 0 };
    waiting.chunks.push(chunk);
    waiting.bytes += chunk.length;
    if (waiting.bytes >= maxBytes) return flush();
    if (timer !== undefined) return;
    const wait = lastWriteAt + options.windowMs - now();
    if (wait <= 0) return flush();
    timer = setTimeout(flush, wait);
    timer.unref(); // the command flushes when it ends (its `finally`), and `exit` and a crash flush first
  }

  function coalesced(stream: Writable): Writable {
    const write = (chunk: unknown, ...rest: unknown[]): boolean => {
      const isPlain = rest.length === 0 || (rest.length === 1 && (rest[0] === 'utf8' || rest[0] === 'utf-8'));
      if (!isClosed && isPlain && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
        gather(stream, chunk);
        return true;
      }
      flush();
      return (stream.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    };
    return new Proxy(stream, {
      get(target, property) {
        if (property === 'write') return write;
        if (property === 'end') {
          return (...args: unknown[]) => {
            flush();
            return (target.end as (...a: unknown[]) => Writable)(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  const stopCrashFlush = io.onCrash?.(flush);
  const wrapped: CliIo = Object.assign(Object.create(io) as CliIo, {
    stdout: coalesced(io.stdout),
    stderr: coalesced(io.stderr),
    exit(code: number) {
      flush();
      io.exit(code);
    },
  });
  return {
    io: wrapped,
    flush,
    close() {
      if (isClosed) return;
      isClosed = true;
      flush();
      stopCrashFlush?.();
    },
  };
}
