import { describe, expect, it } from 'vitest';
import { emptyTimeline, reduceTimeline, type HealTimeline } from '../../../src/inspector-server/heal-timeline.js';
import type { DaemonEvent } from '../../../src/events/index.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function run(events: DaemonEvent[]): HealTimeline {
  return events.reduce(reduceTimeline, emptyTimeline());
}

describe('the status page timeline', () => {
  it('times a tunnel drop from down to open again', () => {
    const timeline = run([
      { event: 'tunnel', at: t(0), state: 'open', url: 'https://a.loca.lt' },
      { event: 'tunnel', at: t(10), state: 'down', reason: 'sockets-gone' },
      { event: 'tunnel', at: t(11), state: 'down', reason: 'still down' },
      { event: 'tunnel', at: t(13), state: 'open', url: 'https://a.loca.lt' },
    ]);
    expect(timeline.entries).toEqual([
      { kind: 'tunnel-drop', startedAt: t(10), endedAt: t(13), durationMs: 3000, outcome: 'ok', detail: 'sockets-gone' },
    ]);
  });

  it('notes a hostname change and times the endpoint heal from the new tools URL to the sync', () => {
    const timeline = run([
      { event: 'tools-url', at: t(0), url: 'https://a.loca.lt/api/median', envFile: null },
      { event: 'endpoint', at: t(1), action: 'synced', id: 'ep', url: 'https://a.loca.lt/api/median' },
      { event: 'tunnel', at: t(5), state: 'down', reason: 'dropped' },
      { event: 'tunnel', at: t(6), state: 'open', url: 'https://b.loca.lt', isHostnameChange: true, requestedSubdomain: 'a', subdomain: 'b' },
      { event: 'tools-url', at: t(6), url: 'https://b.loca.lt/api/median', envFile: null },
      { event: 'endpoint', at: t(7), action: 'changed', id: 'ep', url: 'https://b.loca.lt/api/median' },
      { event: 'endpoint', at: t(9), action: 'synced', id: 'ep', url: 'https://b.loca.lt/api/median' },
    ]);
    expect(timeline.entries.map((e) => [e.kind, e.durationMs, e.outcome])).toEqual([
      ['tunnel-drop', 1000, 'ok'],
      ['hostname-change', 0, 'ok'],
      ['endpoint-heal', 3000, 'ok'],
    ]);
    expect(timeline.entries[1]!.detail).toBe('asked for a, got https://b.loca.lt');
  });

  it('a heal whose sync fails ends failed with the error; one still under way stays open', () => {
    const failed = run([
      { event: 'tools-url', at: t(0), url: 'https://a.loca.lt/api/median', envFile: null },
      { event: 'tools-url', at: t(2), url: 'https://b.loca.lt/api/median', envFile: null },
      { event: 'endpoint', at: t(4), action: 'sync-failed', id: 'ep', url: 'https://b.loca.lt/api/median', error: 'The tool name "x" already comes from …' },
      { event: 'tools-url', at: t(5), url: 'https://c.loca.lt/api/median', envFile: null },
    ]);
    expect(failed.entries).toMatchObject([
      { kind: 'endpoint-heal', outcome: 'failed', durationMs: 2000, detail: 'The tool name "x" already comes from …' },
      { kind: 'endpoint-heal', outcome: 'open', durationMs: null, endedAt: null },
    ]);
  });
});

describe('the status page timeline: the daemon\'s heal states', () => {
  const A = 'https://a.loca.lt/api/median';
  const B = 'https://b.loca.lt/api/median';

  it('a heal toward a new URL opens at its first state, shows each step while it lasts, and ends with the sync', () => {
    const base: DaemonEvent[] = [
      { event: 'heal', at: t(0), state: 'changing', url: A },
      { event: 'tools-url', at: t(0), url: A, envFile: null },
      { event: 'heal', at: t(1), state: 'syncing', url: A },
      { event: 'endpoint', at: t(2), action: 'synced', id: 'ep', url: A },
      { event: 'heal', at: t(2), state: 'done', url: A, durationMs: 2000, synced: true },
      { event: 'heal', at: t(10), state: 'changing', url: B },
      { event: 'tools-url', at: t(10), url: B, envFile: null },
    ];
    // The first URL is no heal; the change to B is, from its `changing`.
    expect(run(base).entries).toEqual([{ kind: 'endpoint-heal', startedAt: t(10), endedAt: null, durationMs: null, outcome: 'open', detail: `to ${B}`, step: 'changing' }]);
    const connecting = run([...base, { event: 'heal', at: t(11), state: 'connecting', url: B }]);
    expect(connecting.entries[0]!.step).toBe('connecting');
    const done = run([...base, { event: 'heal', at: t(13), state: 'done', url: B, durationMs: 3000, synced: false }]);
    expect(done.entries).toEqual([{ kind: 'endpoint-heal', startedAt: t(10), endedAt: t(13), durationMs: 3000, outcome: 'failed', detail: `not synced on ${B}` }]);
  });

  it('a heal that failed because the dev server did not answer reopens when it resumes, and ends ok timed from its first start', () => {
    const failed: DaemonEvent[] = [
      { event: 'tools-url', at: t(0), url: A, envFile: null },
      { event: 'heal', at: t(10), state: 'changing', url: B },
      { event: 'tools-url', at: t(10), url: B, envFile: null },
      { event: 'heal', at: t(11), state: 'syncing', url: B },
      { event: 'heal', at: t(12), state: 'done', url: B, durationMs: 2000, synced: false },
    ];
    expect(run(failed).entries).toMatchObject([{ outcome: 'failed', endedAt: t(12) }]);

    const resuming = run([...failed, { event: 'heal', at: t(40), state: 'syncing', url: B, resumed: true }]);
    expect(resuming.entries).toEqual([{ kind: 'endpoint-heal', startedAt: t(10), endedAt: null, durationMs: null, outcome: 'open', detail: `to ${B}`, step: 'syncing' }]);
    const resumed = run([
      ...failed,
      { event: 'heal', at: t(40), state: 'syncing', url: B, resumed: true },
      { event: 'endpoint', at: t(41), action: 'synced', id: 'ep', url: B },
      { event: 'heal', at: t(41), state: 'done', url: B, durationMs: 31_000, synced: true, resumed: true },
    ]);
    expect(resumed.entries).toEqual([{ kind: 'endpoint-heal', startedAt: t(10), endedAt: t(41), durationMs: 31_000, outcome: 'ok', detail: `synced ${B}` }]);
  });

  it('a resumed heal toward another URL than the failed entry\'s, or after an ok one, changes no entry', () => {
    const healed: DaemonEvent[] = [
      { event: 'tools-url', at: t(0), url: A, envFile: null },
      { event: 'heal', at: t(10), state: 'changing', url: B },
      { event: 'tools-url', at: t(10), url: B, envFile: null },
      { event: 'heal', at: t(12), state: 'done', url: B, durationMs: 2000, synced: false },
    ];
    expect(run([...healed, { event: 'heal', at: t(40), state: 'syncing', url: A, resumed: true }]).entries).toMatchObject([{ outcome: 'failed' }]);
    const ok = healed.map((e) => (e.event === 'heal' && e.state === 'done' ? { ...e, synced: true } : e));
    expect(run([...ok, { event: 'heal', at: t(40), state: 'syncing', url: B, resumed: true }]).entries).toMatchObject([{ outcome: 'ok', endedAt: t(12) }]);
  });
});
