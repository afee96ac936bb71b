import { afterAll, beforeEach, onTestFinished } from 'vitest';

/**
 * Fails a test that closes a file descriptor it does not hold. The
 * in-process test files run in worker threads of one process, and an fd
 * number closed once is free for every thread at once: closing it again (a
 * teardown after the test closed it) can close another file's listening
 * socket, and libuv then aborts the whole run (`uv__server_io: Assertion
 * 'events & POLLIN' failed`, exit 134, as CI saw). Node says so in a worker
 * thread, which tracks the fds it opens, with this warning on every such
 * close, reused number or not; the forks (a process's main thread) do not
 * track them, so this only watches the in-process files.
 */
const DOUBLE_CLOSE = /closed but not opened in unmanaged mode/;

const seen: string[] = [];
const state = globalThis as { medianDevFdWatch?: true };
if (!state.medianDevFdWatch) {
  // Once per worker: this file runs before each test file, and the files share a worker (isolate: false).
  state.medianDevFdWatch = true;
  process.on('warning', (warning) => {
    if (DOUBLE_CLOSE.test(warning.message)) seen.push(warning.message);
  });
}

async function check(): Promise<void> {
  // The warning is emitted on the next tick after the close.
  await new Promise((resolve) => setImmediate(resolve));
  const found = seen.splice(0);
  if (found.length > 0) {
    throw new Error(
      `${found.join('; ')}: this test (or its clean-up) closed a file descriptor twice, or one it did not open. Close each fd exactly once; a second close can close another test's socket.`,
    );
  }
}

// Registered before the test's own clean-ups, so it runs after them (they run last registered first).
beforeEach(() => onTestFinished(check));
afterAll(check);
