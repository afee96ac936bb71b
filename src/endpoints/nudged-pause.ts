import type { Clock } from '../shared/clock.js';
import { pause } from '../shared/delay.js';

/** The pauses between two looks at a starting dev server, cut short by a nudge (route-readiness.ts). */
export interface NudgedPause {
  /** A look starts: a nudge from now on asks for the next one. */
  looking(): void;
  /** Waits `ms`, or until `notBefore` once nudged (a nudge during the look counts; undefined: no nudge counts); an abort ends it. */
  pause(ms: number, notBefore: number | undefined, signal: AbortSignal | undefined): Promise<void>;
  /** Unsubscribes from the nudges. */
  close(): void;
}

/** Subscribes to `nudges` (each one cuts the pause under way short); without them, plain pauses. */
export function createNudgedPause(clock: Clock, nudges: ((nudge: () => void) => () => void) | undefined): NudgedPause {
  let isNudged = false;
  let wake: (() => void) | undefined;
  const unsubscribe = nudges?.(() => {
    isNudged = true;
    wake?.();
  });
  return {
    looking() {
      isNudged = false;
    },
    pause(ms, notBefore, signal) {
      if (!nudges || notBefore === undefined) return pause(ms, signal, clock);
      return new Promise<void>((resolve) => {
        let timer = clock.setTimer(done, ms);
        function done(): void {
          timer.cancel();
          wake = undefined;
          signal?.removeEventListener('abort', done);
          resolve();
        }
        // Nudged: the next look comes now, or once the least gap since the last one has passed.
        const cut = (): void => {
          wake = undefined;
          timer.cancel();
          timer = clock.setTimer(done, Math.max(0, notBefore - clock.now()));
        };
        if (signal?.aborted) return done();
        signal?.addEventListener('abort', done, { once: true });
        if (isNudged) cut();
        else wake = cut;
      });
    },
    close() {
      wake = undefined;
      unsubscribe?.();
    },
  };
}

/** Where nudges come from: `nudge()` tells every subscriber (the `nudges` option of waitForRoute is `subscribe`). */
export function createNudgeSource(): { nudge(): void; subscribe(nudge: () => void): () => void } {
  const subscribers = new Set<() => void>();
  return {
    nudge: () => subscribers.forEach((wake) => wake()),
    subscribe(wake) {
      subscribers.add(wake);
      return () => subscribers.delete(wake);
    },
  };
}
