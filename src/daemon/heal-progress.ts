import type { HealState, NewDaemonEvent } from '../events/index.js';

/** One heal toward a tools URL, as clients see it: each step as a `heal` event, then `done`. */
export interface HealProgress {
  /** The heal reached `state` (said once per state). */
  step(state: HealState): void;
  /** The heal is over: `done`, with its duration and whether the endpoint ended synced at the URL. Once; nothing when no step was said. */
  end(isSynced: boolean): void;
}

/**
 * Reports a heal's in-between states, so the TUI header, the inspector and
 * `--json` readers never show "endpoint synced" for the old URL while the
 * endpoint is being moved to `url`.
 */
export function createHealProgress(url: string, emit: (event: NewDaemonEvent) => void, now: () => number = Date.now): HealProgress {
  const startedAt = now();
  const said = new Set<HealState>();
  let isOver = false;
  return {
    step(state) {
      if (isOver || said.has(state)) return;
      said.add(state);
      emit({ event: 'heal', state, url });
    },
    end(isSynced) {
      if (isOver) return;
      isOver = true;
      if (said.size === 0) return;
      emit({ event: 'heal', state: 'done', url, durationMs: Math.max(0, now() - startedAt), synced: isSynced });
    },
  };
}
