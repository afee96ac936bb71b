// The synchronous output `show` writes its pipes, files and terminals with (src/cli/sync-output.ts), on real pipes: a
// FIFO made with mkfifo and opened non-blocking at both ends, so a write that would block is real too. A socket (what a
// Node parent's `stdio: 'pipe'` gives) and a file are proved by test/e2e/cli/show-built-ins.test.ts, a terminal by
// show-terminal.test.ts: no net, tty or streams loaded there.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { syncOutput } from '../../../src/cli/sync-output.js';
import { outputDeviceOf } from '../../../src/platform/output-device.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * A FIFO opened at both ends. Each end is closed once: by `closeReader()` or by the teardown, never both. A closed fd's
 * number is free for the whole process at once, and the in-process test files run in threads of one process: closing
 * the number again can close another file's socket (libuv then aborts the process: `uv__server_io` assertion).
 */
async function usePipe(): Promise<{ reader: number; writer: number; file: string; closeReader(): void }> {
  const dir = await useTempDir('median-dev-sync-pipe-');
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  let readerOpen = true;
  const closeReader = () => {
    if (!readerOpen) return;
    readerOpen = false;
    closeSync(reader);
  };
  useTeardown(reader, closeReader);
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  useTeardown(writer, closeSync);
  return { reader, writer, file: join(dir, 'file.txt'), closeReader };
}

function readAll(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break; // nothing more in the pipe
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

/** Stands in for process.stdout (a real Writable): keeps what it is given, in order. */
function collecting(): { stream: Writable; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

describe.runIf(process.platform !== 'win32')('syncOutput', () => {
  it('tells a pipe, a file and the null device apart (outputDeviceOf; a terminal: test/e2e/cli/show-terminal.test.ts)', async () => {
    const { writer, file } = await usePipe();
    expect(outputDeviceOf(writer, process.platform)).toBe('pipe');
    const fd = openSync(file, 'w');
    useTeardown(fd, closeSync);
    expect(outputDeviceOf(fd, process.platform)).toBe('file');
    const device = openSync('/dev/null', 'w');
    useTeardown(device, closeSync);
    expect(outputDeviceOf(device, process.platform)).toBe('other');
    // Another character device is taken for a terminal, but for Windows, whose console Node's stream writes.
    const zero = openSync('/dev/zero', 'r');
    useTeardown(zero, closeSync);
    expect(outputDeviceOf(zero, 'linux')).toBe('terminal');
    expect(outputDeviceOf(zero, 'win32')).toBe('other');
    expect(outputDeviceOf(987_654, process.platform)).toBe('other');
  });

  it('says it is a terminal when told so, and nothing else when not', async () => {
    const { writer } = await usePipe();
    const fail = { onError: () => expect.unreachable(), fallback: () => expect.unreachable() };
    expect((syncOutput(writer, { ...fail, isTTY: true }) as { isTTY?: boolean }).isTTY).toBe(true);
    expect((syncOutput(writer, fail) as { isTTY?: boolean }).isTTY).toBe(false);
  });

  it('writes strings and bytes in order, and calls back', async () => {
    const { reader, writer } = await usePipe();
    const out = syncOutput(writer, { onError: () => expect.unreachable(), fallback: () => expect.unreachable() });
    let calledBack = 0;
    out.write('{"id":"rec_1",', () => (calledBack += 1));
    out.write(Buffer.from('"é":1}'));
    out.end('\n', () => (calledBack += 1));
    expect(readAll(reader).toString('utf8')).toBe('{"id":"rec_1","é":1}\n');
    expect(calledBack).toBe(2);
  });

  it('hands what would block, and every later write, to the process stream in order', async () => {
    const { reader, writer } = await usePipe();
    const own = collecting();
    let fallbacks = 0;
    const out = syncOutput(writer, { onError: () => expect.unreachable(), fallback: () => ((fallbacks += 1), own.stream) });
    const big = Buffer.alloc(1024 * 1024, 'a'); // more than a pipe holds (64 KiB on Linux)
    out.write(big);
    out.write('after');
    expect(fallbacks).toBe(1);
    const inPipe = readAll(reader);
    expect(inPipe.length).toBeGreaterThan(0);
    expect(Buffer.concat([inPipe, own.bytes()]).toString('latin1')).toBe(`${big.toString('latin1')}after`);
  });

  it('reports a reader gone (EPIPE) once, and drops later writes', async () => {
    const { writer, closeReader } = await usePipe();
    closeReader();
    const errors: string[] = [];
    const out = syncOutput(writer, { onError: (error) => errors.push(String(error.code)), fallback: () => expect.unreachable() });
    expect(out.write('first\n')).toBe(true);
    out.write('second\n');
    expect(errors).toEqual(['EPIPE']);
  });
});
