import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ManualClock } from './manual-clock.js';

/**
 * Waits for `work` while moving `clock` on to each short wait it sets (a pause
 * between tries, a poll of the sync): whenever the next timer is at most
 * `maxStepMs` away, time jumps to it. A longer timer (a request's 10 s
 * timeout, set while real I/O is under way) runs only when the test advances
 * to it itself, so no answer is beaten by its timeout. Unlike `driveClock`,
 * it needs no signal of what is in flight: the code it drives (the Median API
 * client and its retries) waits either on an answer or on a short pause,
 * never on both. Between looks the real event loop runs (ms, like
 * vi.waitFor's interval), so real sockets answer meanwhile. With
 * `isSettled`, time moves only while it holds: real work that a short wait
 * polls for (Median syncing an endpoint) is never outrun by the clock.
 */
export async function advanceShortWaitsUntil<T>(clock: ManualClock, work: Promise<T>, maxStepMs = 5_000, isSettled: () => boolean = () => true): Promise<T> {
  let isDone = false;
  const done = work.then(
    () => void (isDone = true),
    () => void (isDone = true),
  );
  while (!isDone) {
    const due = clock.nextTimerIn();
    if (due !== undefined && due <= maxStepMs && isSettled()) clock.advance(due);
    else await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 2))]);
    await nextTurn();
  }
  return work;
}
