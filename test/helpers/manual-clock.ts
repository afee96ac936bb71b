import type { Clock, ClockTimer } from '../../src/shared/index.js';

export interface ManualClock extends Clock {
  /** Moves time on by `ms`, running each timer that falls due, in due order. */
  advance(ms: number): void;
  /**
   * The process did not run for `ms` (a laptop asleep, SIGSTOP): time moves
   * on and no timer runs; the next `advance` runs the overdue ones, late, as
   * real timers fire after a wake.
   */
  stall(ms: number): void;
  /** Timers still waiting. */
  pendingTimers(): number;
  /** How far off the next timer is (0 when one is due now), or undefined when none waits. */
  nextTimerIn(): number | undefined;
}

/**
 * A clock a test drives. It copies real time's behaviour that the code relies
 * on: `now()` only moves forward, a timer runs once when its time has come
 * (never early), timers due at the same moment run in the order they were
 * set, and a cancelled timer never runs. It starts at the real time, so what
 * is signed with it stays inside a route's five-minute window until a test
 * moves it further.
 */
export function createManualClock(start = Date.now()): ManualClock {
  let now = start;
  let order = 0;
  const timers = new Map<number, { at: number; order: number; run: () => void }>();
  return {
    now: () => now,
    setTimer(run, ms): ClockTimer {
      const id = ++order;
      timers.set(id, { at: now + Math.max(0, ms), order: id, run });
      return { cancel: () => void timers.delete(id) };
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort(([, a], [, b]) => a.at - b.at || a.order - b.order)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].run();
      }
      now = until;
    },
    stall(ms) {
      now += ms;
    },
    pendingTimers: () => timers.size,
    nextTimerIn() {
      const ats = [...timers.values()].map((t) => t.at);
      return ats.length === 0 ? undefined : Math.max(0, Math.min(...ats) - now);
    },
  };
}
