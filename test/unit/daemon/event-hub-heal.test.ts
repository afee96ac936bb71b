import { describe, expect, it } from 'vitest';
import { createEventHub } from '../../../src/daemon/event-hub.js';

const URL = 'https://brave-lynx.loca.lt/api/median';
const hub = () => createEventHub({ version: '0.1.0', isDemo: false, keyFingerprint: null, callCount: 0, records: [] });

describe('the control snapshot during a heal', () => {
  it('holds the heal under way (state, target, when it began) until it is done', () => {
    const events = hub();
    expect(events.snapshot().heal).toBeNull();

    events.emit({ event: 'heal', state: 'changing', url: URL });
    const began = events.snapshot().heal!;
    expect(began).toEqual({ state: 'changing', url: URL, startedAt: expect.any(String) });
    events.emit({ event: 'heal', state: 'syncing', url: URL });
    expect(events.snapshot().heal).toEqual({ state: 'syncing', url: URL, startedAt: began.startedAt });

    events.emit({ event: 'heal', state: 'done', url: URL, durationMs: 10, synced: true });
    expect(events.snapshot().heal).toBeNull();
  });

  it('a resumed heal is under way since its first start, not since it resumed', () => {
    const events = hub();
    events.emit({ event: 'heal', state: 'syncing', url: URL, resumed: true, startedAt: '2026-01-05T14:02:10.000Z' });
    expect(events.snapshot().heal).toEqual({ state: 'syncing', url: URL, startedAt: '2026-01-05T14:02:10.000Z' });
  });
});
