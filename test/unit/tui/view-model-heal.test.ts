import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../src/events/index.js';
import { formatHeader, initialState, reduce, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';

const OLD = 'https://calm-otter.loca.lt/api/median';
const NEW = 'https://brave-lynx.loca.lt/api/median';

function run(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce((current, action) => reduce(current, action).state, state);
}
const event = (e: DaemonEvent): TuiAction => ({ type: 'event', event: e });
const heal = (state: 'changing' | 'connecting' | 'syncing', at = '2026-01-05T14:02:10.000Z'): TuiAction => event({ event: 'heal', at, state, url: NEW });
/** Synced on the old URL, as the snapshot says. */
const synced = (): TuiState => run(initialState({ width: 140, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot([]) });

describe('the TUI header during a heal', () => {
  it('shows each in-between state with the target URL, never the old endpoint’s "synced"', () => {
    expect(formatHeader(synced())).toContain('endpoint synced');
    for (const state of ['changing', 'connecting', 'syncing'] as const) {
      const header = formatHeader(run(synced(), heal('changing'), heal(state)));
      expect(header).toContain(`endpoint ${state} → ${NEW}`);
      expect(header).not.toContain('endpoint synced');
    }
  });

  it('an endpoint event during the heal does not bring "synced" back before the heal is done', () => {
    const mid = run(synced(), heal('syncing'), event({ event: 'endpoint', at: 't', action: 'synced', id: 'ep_1', url: NEW }));
    expect(formatHeader(mid)).toContain(`endpoint syncing → ${NEW}`);
    const done = run(mid, event({ event: 'heal', at: 't', state: 'done', url: NEW, durationMs: 812, synced: true }));
    expect(formatHeader(done)).toContain('endpoint synced');
    expect(done.daemon.heal).toBeNull();
  });

  it('a heal that resumes once the dev server answers shows again, under way since its first start, until done', () => {
    const unsynced = run(synced(), heal('syncing'), event({ event: 'heal', at: '2026-01-05T14:02:12.000Z', state: 'done', url: NEW, durationMs: 2000, synced: false }));
    expect(unsynced.daemon.heal).toBeNull();
    const resumed = run(unsynced, event({ event: 'heal', at: '2026-01-05T14:03:00.000Z', state: 'syncing', url: NEW, resumed: true, startedAt: '2026-01-05T14:02:10.000Z' }));
    expect(formatHeader(resumed)).toContain(`endpoint syncing → ${NEW}`);
    expect(resumed.daemon.heal?.startedAt).toBe('2026-01-05T14:02:10.000Z');
    const done = run(resumed, event({ event: 'heal', at: 't', state: 'done', url: NEW, durationMs: 51_000, synced: true, resumed: true, startedAt: '2026-01-05T14:02:10.000Z' }));
    expect(done.daemon.heal).toBeNull();
  });

  it('a client that attaches mid-heal gets the state from the snapshot', () => {
    const snapshot = makeSnapshot([], { heal: { state: 'connecting', url: NEW, startedAt: '2026-01-05T14:02:10.000Z' }, endpoint: { id: 'ep_1', url: OLD, status: 'synced', error: null } });
    const state = run(initialState({ width: 140, height: 30 }), { type: 'snapshot', snapshot });
    expect(formatHeader(state)).toContain(`endpoint connecting → ${NEW}`);
  });

  it('says once that the dev server runs without a tunnel', () => {
    const state = run(synced(), event({ event: 'local-only', at: 't', toolsUrl: null, message: 'The dev server runs without a tunnel, without MEDIAN_TOOLS_URL.' }));
    expect(state.flash).toEqual({ text: 'The dev server runs without a tunnel, without MEDIAN_TOOLS_URL.', level: 'warn' });
  });
});

describe('the TUI header without a tunnel', () => {
  const local = (overrides: Parameters<typeof makeSnapshot>[1]) =>
    formatHeader(run(initialState({ width: 200, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot([], { tunnel: { state: 'down', url: null, reason: 'connect ECONNREFUSED' }, toolsUrl: null, endpoint: null, ...overrides }) }));

  it('says the dev server runs locally while the tunnel never opened and it runs', () => {
    expect(local({})).toContain('dev server runs locally; the tunnel URL and the endpoint follow');
  });

  it('says nothing of the kind once the tunnel gave a URL, or with no dev server running', () => {
    expect(local({ toolsUrl: 'https://calm-otter.loca.lt/api/median' })).not.toContain('runs locally');
    expect(local({ child: { state: 'none' } })).not.toContain('runs locally');
    expect(local({ tunnel: { state: 'open', url: 'https://calm-otter.loca.lt' } })).not.toContain('runs locally');
  });
});
