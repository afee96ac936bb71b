import { describe, expect, it } from 'vitest';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { createHealProgress } from '../../../src/daemon/heal-progress.js';

const URL = 'https://brave-lynx.loca.lt/api/median';

function track(): { events: NewDaemonEvent[]; clock: { now: number }; progress: ReturnType<typeof createHealProgress> } {
  const events: NewDaemonEvent[] = [];
  const clock = { now: 1_000 };
  return { events, clock, progress: createHealProgress(URL, (e) => events.push(e), { now: () => clock.now }) };
}

describe('the progress of one heal', () => {
  it('says each state once, then done once with the time since it was created', () => {
    const { events, clock, progress } = track();
    progress.step('changing');
    progress.step('changing');
    progress.step('syncing');
    clock.now = 3_500;
    progress.end(true);
    progress.end(false);
    progress.step('connecting');
    expect(events).toEqual([
      { event: 'heal', state: 'changing', url: URL },
      { event: 'heal', state: 'syncing', url: URL },
      { event: 'heal', state: 'done', url: URL, durationMs: 2_500, synced: true },
    ]);
  });

  it('a resumed heal says `resumed` on each event and times `done` from the first heal\'s start', () => {
    const events: NewDaemonEvent[] = [];
    const progress = createHealProgress(URL, (e) => events.push(e), { now: () => 9_000, resumesFrom: 1_000 });
    expect(progress.startedAt).toBe(1_000);
    progress.step('syncing');
    progress.end(true);
    expect(events).toEqual([
      { event: 'heal', state: 'syncing', url: URL, resumed: true, startedAt: new Date(1_000).toISOString() },
      { event: 'heal', state: 'done', url: URL, durationMs: 8_000, synced: true, resumed: true, startedAt: new Date(1_000).toISOString() },
    ]);
  });

  it('a heal that took no step (same URL, nothing to wait for, nothing to sync) says nothing at all', () => {
    const { events, progress } = track();
    progress.end(false);
    expect(events).toEqual([]);
  });
});
