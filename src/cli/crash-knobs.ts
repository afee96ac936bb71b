import type { Readable, Writable } from 'node:stream';
import type { Daemon } from '../daemon/daemon-options.js';
import type { CliIo } from './cli-io.js';

/**
 * Test-only knobs, read here in src/cli and nowhere else, for the crashes the
 * daemon must survive or clean up after. No real input provokes them any
 * more (every reader of a record is bounded), so the tests that prove the
 * promises ("the daemon outlives its TUI", "a daemon that dies stops its dev
 * server") provoke them on purpose. Not for users; not in the docs.
 *
 * - MEDIAN_DEV_TEST_CRASH_VIEW=<text>: the first write to the terminal that
 *   holds <text> throws, and so does every write after it until the TUI lets
 *   go of the terminal: a screen that cannot draw at all, not even the line
 *   saying a frame failed.
 * - MEDIAN_DEV_TEST_CRASH_INPUT=<text>: the first chunk the terminal sends
 *   that holds <text> throws in a listener on the input, beside blessed's key
 *   parser: an error while the TUI takes input, which no caller can catch.
 * - MEDIAN_DEV_TEST_CRASH_DAEMON=<toolCallId>: recording a call with that
 *   toolCallId throws an uncaught error in the daemon's process: a bug.
 */
export const CRASH_VIEW_KNOB = 'MEDIAN_DEV_TEST_CRASH_VIEW';
export const CRASH_INPUT_KNOB = 'MEDIAN_DEV_TEST_CRASH_INPUT';
export const CRASH_DAEMON_KNOB = 'MEDIAN_DEV_TEST_CRASH_DAEMON';

/** With the knob set, breaks `output`'s writes as it says; returns what mends them (idempotent). */
export function breakViewWrites(output: Writable, env: CliIo['env']): () => void {
  const text = env[CRASH_VIEW_KNOB];
  if (!text) return () => undefined;
  const write = output.write;
  let isBroken = false;
  output.write = function brokenWrite(this: Writable, ...args: Parameters<Writable['write']>) {
    if (isBroken || String(args[0]).includes(text)) {
      isBroken = true;
      throw new Error(`a view crash injected by ${CRASH_VIEW_KNOB}`);
    }
    return write.apply(this, args);
  } as Writable['write'];
  return () => {
    output.write = write;
  };
}

/** With the knob set, breaks `input`'s handling as it says (once); returns what takes the break away (idempotent). */
export function breakInput(input: Readable, env: CliIo['env']): () => void {
  const text = env[CRASH_INPUT_KNOB];
  if (!text) return () => undefined;
  let hasThrown = false;
  const onData = (chunk: Buffer | string) => {
    if (hasThrown || !String(chunk).includes(text)) return;
    hasThrown = true;
    throw new Error(`an input crash injected by ${CRASH_INPUT_KNOB}`);
  };
  input.on('data', onData);
  return () => void input.off('data', onData);
}

/** With the knob set, a recorded call with its toolCallId throws an uncaught error (outside any handler's try). */
export function crashDaemonOnCall(daemon: Pick<Daemon, 'events'>, env: CliIo['env']): void {
  const toolCallId = env[CRASH_DAEMON_KNOB];
  if (!toolCallId) return;
  daemon.events.on((event) => {
    if (event.event !== 'call' || event.toolCallId !== toolCallId) return;
    setImmediate(() => {
      throw new Error(`a daemon crash injected by ${CRASH_DAEMON_KNOB}`);
    });
  });
}
