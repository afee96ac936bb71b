import type { HealState, NewDaemonEvent } from '../events/index.js';

/** One heal toward a tools URL, as clients see it: each step as a `heal` event, then `done`. */
export interface HealProgress {
  /** When the heal began (ms since the epoch): a resumed heal keeps its first start. */
  readonly startedAt: number;
  /** The heal reached `state` (said once per state). */
  step(state: HealState): void;
  /** The heal is over: `done`, with its duration and whether the endpoint ended synced at the URL. Once; nothing when no step was said. */
  end(isSynced: boolean): void;
}

export interface HealProgressOptions {
  now?: () => number;
  /**
   * This heal resumes one that ended unsynced because the dev server did not
   * answer (its start, ms since the epoch): each event says `resumed: true`
   * and that `startedAt`, and `done`'s duration counts from it.
   */
  resumesFrom?: number;
}

/**
 * Reports a heal's in-between states, so the TUI header, the inspector and
 * `--json` readers never show "endpoint synced" for the old URL while the
 * endpoint is being moved to `url`.
 */
export function createHealProgress(url: string, emit: (event: NewDaemonEvent) => void, options: HealProgressOptions = {}): HealProgress {
  const now = options.now ?? Date.now;
  const startedAt = options.resumesFrom ?? now();
  const resumed = options.resumesFrom === undefined ? {} : { resumed: true, startedAt: new Date(startedAt).toISOString() };
  const said = new Set<HealState>();
  let isOver = false;
  return {
    startedAt,
    step(state) {
      if (isOver || said.has(state)) return;
      said.add(state);
      emit({ event: 'heal', state, url, ...resumed });
    },
    end(isSynced) {
      if (isOver) return;
      isOver = true;
      if (said.size === 0) return;
      emit({ event: 'heal', state: 'done', url, durationMs: Math.max(0, now() - startedAt), synced: isSynced, ...resumed });
    },
  };
}
