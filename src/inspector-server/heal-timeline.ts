import type { DaemonEvent, HealState } from '../events/index.js';
import type { TimelineEntry } from '../events/inspector-api.js';

/**
 * The status page's history, reduced from daemon events: each tunnel drop
 * (down → open again), each hostname change, and each endpoint heal (from
 * its first `heal` state, or the new tools URL, to the endpoint synced on
 * it, its sync failing, or the heal done), with how long it took and, while
 * it lasts, the step it is at. A heal that failed because the dev server did
 * not answer reopens when it resumes (`resumed`), and its duration then runs
 * from its first start. Newest last; at most MAX_ENTRIES.
 */
export interface HealTimeline {
  entries: TimelineEntry[];
  /** The tools URL the endpoint was last synced for (a change starts a heal). */
  lastToolsUrl: string | null;
  /** The tools URL the newest endpoint heal entry heads to. */
  healUrl: string | null;
}

const MAX_ENTRIES = 200;

export function emptyTimeline(): HealTimeline {
  return { entries: [], lastToolsUrl: null, healUrl: null };
}

function openEntry(entries: TimelineEntry[], kind: TimelineEntry['kind']): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.kind === kind && entries[i]!.outcome === 'open') return i;
  }
  return -1;
}

function finish(entries: TimelineEntry[], kind: TimelineEntry['kind'], at: string, outcome: 'ok' | 'failed', detail?: string): TimelineEntry[] {
  const i = openEntry(entries, kind);
  if (i < 0) return entries;
  const entry = entries[i]!;
  const durationMs = Math.max(0, Date.parse(at) - Date.parse(entry.startedAt));
  const next = entries.slice();
  const { step: _over, ...ended } = entry;
  next[i] = { ...ended, endedAt: at, durationMs: Number.isFinite(durationMs) ? durationMs : null, outcome, detail: detail ?? entry.detail };
  return next;
}

function start(entries: TimelineEntry[], kind: TimelineEntry['kind'], at: string, detail: string, outcome: TimelineEntry['outcome'] = 'open'): TimelineEntry[] {
  const entry: TimelineEntry = { kind, startedAt: at, endedAt: outcome === 'open' ? null : at, durationMs: outcome === 'open' ? null : 0, outcome, detail };
  return [...entries, entry].slice(-MAX_ENTRIES);
}

/** A resumed heal: the newest heal entry, if it failed toward `url`, is open again at `step`. */
function reopen(timeline: HealTimeline, url: string, step: HealState): HealTimeline {
  let i = timeline.entries.length - 1;
  while (i >= 0 && timeline.entries[i]!.kind !== 'endpoint-heal') i--;
  const entry = timeline.entries[i];
  if (!entry || entry.outcome !== 'failed' || timeline.healUrl !== url) return timeline;
  const entries = timeline.entries.slice();
  entries[i] = { ...entry, endedAt: null, durationMs: null, outcome: 'open', detail: `to ${url}`, step };
  return { ...timeline, entries };
}

export function reduceTimeline(timeline: HealTimeline, event: DaemonEvent): HealTimeline {
  switch (event.event) {
    case 'tunnel': {
      if (event.state === 'down') {
        if (openEntry(timeline.entries, 'tunnel-drop') >= 0) return timeline;
        return { ...timeline, entries: start(timeline.entries, 'tunnel-drop', event.at, event.reason ?? 'the tunnel dropped') };
      }
      if (event.state !== 'open') return timeline;
      let entries = finish(timeline.entries, 'tunnel-drop', event.at, 'ok');
      if (event.isHostnameChange) {
        const detail = event.requestedSubdomain
          ? `asked for ${event.requestedSubdomain}, got ${event.url ?? event.subdomain ?? 'another name'}`
          : `now ${event.url ?? 'another name'}`;
        entries = start(entries, 'hostname-change', event.at, detail, 'ok');
      }
      return { ...timeline, entries };
    }
    case 'tools-url': {
      if (timeline.lastToolsUrl === null) return { ...timeline, lastToolsUrl: event.url };
      if (event.url === timeline.lastToolsUrl) return timeline;
      if (openEntry(timeline.entries, 'endpoint-heal') >= 0) return { ...timeline, lastToolsUrl: event.url };
      return { entries: start(timeline.entries, 'endpoint-heal', event.at, `to ${event.url}`), lastToolsUrl: event.url, healUrl: event.url };
    }
    case 'heal': {
      // The daemon's own steps: a heal toward a new URL opens (or moves on) the entry; `done` ends one still open.
      const open = openEntry(timeline.entries, 'endpoint-heal');
      if (event.state === 'done') {
        return open < 0 ? timeline : { ...timeline, entries: finish(timeline.entries, 'endpoint-heal', event.at, event.synced ? 'ok' : 'failed', event.synced ? `synced ${event.url}` : `not synced on ${event.url}`) };
      }
      if (open >= 0) {
        const entries = timeline.entries.slice();
        entries[open] = { ...entries[open]!, step: event.state };
        return { ...timeline, entries };
      }
      if (event.resumed) return reopen(timeline, event.url, event.state);
      if (timeline.lastToolsUrl === null || event.url === timeline.lastToolsUrl) return timeline;
      const entries = start(timeline.entries, 'endpoint-heal', event.at, `to ${event.url}`);
      entries[entries.length - 1] = { ...entries.at(-1)!, step: event.state };
      return { ...timeline, entries, healUrl: event.url };
    }
    case 'endpoint': {
      if (event.action === 'synced') return { ...timeline, entries: finish(timeline.entries, 'endpoint-heal', event.at, 'ok', `synced ${event.url}`) };
      if (event.action === 'sync-failed' || event.action === 'clash') {
        return { ...timeline, entries: finish(timeline.entries, 'endpoint-heal', event.at, 'failed', event.error ?? `${event.action} on ${event.url}`) };
      }
      return timeline;
    }
    default:
      return timeline;
  }
}
