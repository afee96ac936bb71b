import type { Clock, ClockTimer } from '../shared/index.js';

/** The longest a `GET /v1/emulator/approvals?wait=` is held, in seconds. */
export const MAX_APPROVALS_WAIT_S = 25;

/**
 * The version of the approvals list, for OUR long poll
 * (`GET /v1/emulator/approvals?since=<version>&wait=<s>`): it goes up on every
 * change (a call held, approved, denied, expired, handed to a teammate), and
 * a waiter is told at the first change after its version, or at its wait's
 * end on the emulator's clock, or when the emulator closes.
 */
export function createApprovalChanges(clock: Clock) {
  let version = 0;
  const waiters = new Set<{ timer: ClockTimer; done: () => void }>();

  function wakeAll(): void {
    for (const waiter of [...waiters]) waiter.done();
  }

  return {
    version: (): number => version,
    changed(): void {
      version += 1;
      wakeAll();
    },
    /** Resolves at once unless `since` is the version now; else at a change, the wait's end, `signal` or close. */
    waitPast(since: number, ms: number, signal?: AbortSignal): Promise<void> {
      if (since !== version || ms <= 0 || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiter = {
          timer: clock.setTimer(() => waiter.done(), ms),
          done: () => {
            waiter.timer.cancel();
            signal?.removeEventListener('abort', waiter.done);
            waiters.delete(waiter);
            resolve();
          },
        };
        waiters.add(waiter);
        signal?.addEventListener('abort', waiter.done, { once: true });
      });
    },
    /** Lets every held request answer and cancels their timers. */
    close: wakeAll,
  };
}

export type ApprovalChanges = ReturnType<typeof createApprovalChanges>;
