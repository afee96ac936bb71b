import type { NewDaemonEvent } from '../events/index.js';

/** How long nothing may answer at --target before median-dev says so (a dev server listens within a second or two; compiling comes after). */
export const TARGET_SILENT_AFTER_MS = 3_000;

/** A loopback URL a dev server prints when it is ready (`Local: http://localhost:3001`). */
const PRINTED_URL = /\bhttps?:\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])(?::\d+)?/i;

export interface TargetWatch {
  /** A line of the dev server's output: a URL it prints is named in the hint. */
  noteOutput(line: string): void;
  /** Nothing answered at --target for TARGET_SILENT_AFTER_MS: says `target_unreachable` once until it answers. */
  unreachable(reason: string): void;
  /** It answered: a later outage is said again. */
  answered(): void;
}

/**
 * The proxy knows at once that nothing answers at --target: this says so in
 * seconds (an `error` event `target_unreachable`), instead of a heal that sits
 * at `connecting`/`syncing` until its minute is up.
 */
export function createTargetWatch(options: { target: string; route: string; emit(event: NewDaemonEvent): void }): TargetWatch {
  let isSaid = false;
  let printedOrigin: string | undefined;
  return {
    noteOutput(line) {
      const found = PRINTED_URL.exec(line)?.[0];
      if (found) printedOrigin = new URL(found.replace('0.0.0.0', '127.0.0.1')).origin;
    },
    unreachable(reason) {
      if (isSaid) return;
      isSaid = true;
      const elsewhere = printedOrigin && printedOrigin !== options.target ? ` The dev server said it listens on ${printedOrigin}.` : '';
      options.emit({
        event: 'error',
        code: 'target_unreachable',
        message: `Nothing answers at ${options.target}${options.route} (--target): ${reason}.${elsewhere} median-dev keeps trying.`,
        hint: `Start the dev server there, or start again with --target ${printedOrigin && printedOrigin !== options.target ? printedOrigin : '<the origin it listens on>'} (the next start remembers it).`,
      });
    },
    answered() {
      isSaid = false;
    },
  };
}
