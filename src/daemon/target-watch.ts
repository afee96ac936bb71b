import type { NewDaemonEvent } from '../events/index.js';

/** How long nothing may answer at --target before median-dev says so: when the dev server said it listens elsewhere, or none is starting. */
export const TARGET_SILENT_AFTER_MS = 3_000;
/** A dev server that is starting and said nothing about where it listens gets longer (a loaded machine, a big app). */
const STARTING_SILENT_AFTER_MS = 10_000;

/** A loopback URL a dev server prints when it is ready (`Local: http://localhost:3001`). */
const PRINTED_URL = /\bhttps?:\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\])(?::\d+)?/i;

export interface TargetWatch {
  /** A line of the dev server's output: a URL it prints is named in the hint. */
  noteOutput(line: string): void;
  /**
   * Nothing has answered at --target for `elapsedMs`: past 3 s (10 s while a dev
   * server starts without saying it listens elsewhere) says `target_unreachable`, once until it answers.
   */
  unreachable(reason: string, elapsedMs: number, isDevServerStarting: boolean): void;
  /** It answered: a later outage is said again. */
  answered(): void;
}

/**
 * The proxy knows at once that nothing answers at --target: this says so in
 * seconds (an `error` event `target_unreachable`), instead of a heal that sits
 * at `connecting`/`syncing` until its minute is up.
 */
export function createTargetWatch(options: {
  /** The origin calls go to (a function: it may be found from the dev server after the start). */
  target: string | (() => string);
  route: string;
  /** Whether that origin was named with --target (else it was found from the dev server, or is the default). */
  isNamed?: () => boolean;
  emit(event: NewDaemonEvent): void;
}): TargetWatch {
  const targetNow = (): string => (typeof options.target === 'string' ? options.target : options.target());
  let isSaid = false;
  let printedOrigin: string | undefined;
  return {
    noteOutput(line) {
      const found = PRINTED_URL.exec(line)?.[0];
      if (found) printedOrigin = new URL(found.replace('0.0.0.0', '127.0.0.1')).origin;
    },
    unreachable(reason, elapsedMs, isDevServerStarting) {
      const target = targetNow();
      const isElsewhere = printedOrigin !== undefined && printedOrigin !== target;
      const after = isDevServerStarting && !isElsewhere ? STARTING_SILENT_AFTER_MS : TARGET_SILENT_AFTER_MS;
      if (isSaid || elapsedMs < after) return;
      isSaid = true;
      const elsewhere = isElsewhere ? ` The dev server said it listens on ${printedOrigin}.` : '';
      options.emit({
        event: 'error',
        code: 'target_unreachable',
        message: `Nothing answers at ${target}${options.route}${options.isNamed?.() === false ? '' : ' (--target)'}: ${reason}.${elsewhere} median-dev keeps trying.`,
        hint: `Start the dev server there, or start again with --target ${isElsewhere ? printedOrigin : '<the origin it listens on>'} (the next start remembers it).`,
      });
    },
    answered() {
      isSaid = false;
    },
  };
}
