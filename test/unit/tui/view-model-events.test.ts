import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { formatHeader, initialState, reduce, selectedRecord, visibleRows, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

function run(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce((current, action) => reduce(current, action).state, state);
}

const key = (k: string): TuiAction => ({ type: 'key', key: k });
const event = (e: DaemonEvent): TuiAction => ({ type: 'event', event: e });
const arrive = (record: CallRecord): TuiAction => event(callEvent(record));

function started(records: CallRecord[] = []): TuiState {
  return run(initialState({ width: 100, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot(records) });
}

describe('follow mode', () => {
  it('keeps the newest call selected while following', () => {
    const first = makeRecord();
    const second = makeRecord();
    let state = started([first]);
    expect(selectedRecord(state)?.id).toBe(first.id);
    state = run(state, arrive(second));
    expect(state.selection).toBe('follow');
    expect(selectedRecord(state)?.id).toBe(second.id);
    expect(visibleRows(state)[0]).toEqual({ record: second, isSelected: true });
  });

  it('stays on the record the user moved to while new calls arrive', () => {
    const records = Array.from({ length: 30 }, () => makeRecord());
    let state = run(started(records), key('j'));
    const chosen = selectedRecord(state);
    expect(chosen?.id).toBe(records[28]?.id);
    for (let i = 0; i < 20; i++) state = run(state, arrive(makeRecord()));
    expect(selectedRecord(state)?.id).toBe(chosen?.id);
    // The rows the user looks at stay put: the new calls are above the viewport.
    expect(state.viewport.top).toBe(20);
    expect(visibleRows(state).find((row) => row.isSelected)?.record.id).toBe(chosen?.id);
    // g follows again.
    state = run(state, key('g'));
    expect(selectedRecord(state)?.id).toBe(state.records.at(state.records.length - 1)?.id);
    expect(state.viewport.top).toBe(0);
  });

  it('does not count a record twice when the snapshot and an event race', () => {
    const record = makeRecord();
    const state = run(started([record]), arrive(record));
    expect(state.records.length).toBe(1);
    expect(state.callCount).toBe(1);
  });

  it('updates a record that arrives again with the same id', () => {
    const record = makeRecord();
    const late = { ...record, lateAnswer: true };
    const state = run(started([record]), arrive(late));
    expect(state.records.length).toBe(1);
    expect(selectedRecord(state)?.lateAnswer).toBe(true);
  });

  it('builds a summary record for a call event without one', () => {
    const record = makeRecord({ tool: 'refund_order' });
    const state = run(started(), event(callEvent(record, { withRecord: false })));
    expect(selectedRecord(state)).toMatchObject({ id: record.id, tool: 'refund_order', verdict: { kind: 'answered' }, response: { status: 200 } });
  });

  it('keeps the selection across a new snapshot by record id', () => {
    const records = [makeRecord(), makeRecord(), makeRecord()];
    const state = run(started(records), key('j'), { type: 'snapshot', snapshot: makeSnapshot([makeRecord(), ...records]) });
    expect(selectedRecord(state)?.id).toBe(records[1]?.id);
  });

  it('is pure: two events on one state give two independent states', () => {
    const base = started([makeRecord()]);
    const a = makeRecord({ tool: 'a_tool' });
    const b = makeRecord({ tool: 'b_tool' });
    const withA = run(base, arrive(a));
    const withB = run(base, arrive(b));
    const withA2 = run(withA, arrive(makeRecord({ tool: 'c_tool' })));
    expect(base.records.length).toBe(1);
    expect(selectedRecord(withA)?.tool).toBe('a_tool');
    expect(selectedRecord(withB)?.tool).toBe('b_tool');
    expect(withB.records.indexOf(a.id)).toBeUndefined();
    expect(withA2.records.length).toBe(3);
    expect(withA.records.length).toBe(2);
  });
});

describe('filtered list', () => {
  it('adds matching calls as they arrive and skips the others', () => {
    const refund = makeRecord({ tool: 'refund_order' });
    let state = run(started([makeRecord(), refund]), key('/'), ...[...'refund'].map(key), key('enter'));
    expect(visibleRows(state).map((row) => row.record.id)).toEqual([refund.id]);
    const later = makeRecord({ tool: 'refund_order' });
    state = run(state, arrive(makeRecord({ tool: 'lookup_order' })), arrive(later));
    expect(visibleRows(state).map((row) => row.record.id)).toEqual([later.id, refund.id]);
    expect(selectedRecord(state)?.id).toBe(later.id);
    expect(formatHeader(state)).toContain('filter "refund": 2 of 4');
  });

  it('falls back to following when the selected call is filtered out', () => {
    const records = [makeRecord({ tool: 'refund_order' }), makeRecord({ tool: 'lookup_order' }), makeRecord({ tool: 'lookup_order' })];
    const state = run(started(records), key('G'), key('/'), ...[...'lookup'].map(key), key('enter'));
    expect(state.selection).toBe('follow');
    expect(selectedRecord(state)?.id).toBe(records[2]?.id);
  });

  it('says so when nothing matches', () => {
    const state = run(started([makeRecord()]), key('/'), ...[...'nothing-like-this'].map(key), key('enter'));
    expect(visibleRows(state)).toEqual([]);
    expect(state.flash?.level).toBe('warn');
  });
});

describe('daemon events in the header', () => {
  it.each<[string, DaemonEvent, string, 'info' | 'warn' | 'error' | null]>([
    ['tunnel open', { event: 'tunnel', at: 't', state: 'open', url: 'https://new-name.loca.lt' }, 'open https://new-name.loca.lt', null],
    ['hostname change', { event: 'tunnel', at: 't', state: 'open', url: 'https://other.loca.lt', isHostnameChange: true, requestedSubdomain: 'calm-otter' }, 'https://other.loca.lt', 'warn'],
    ['tunnel connecting', { event: 'tunnel', at: 't', state: 'connecting' }, 'connecting https://calm-otter.loca.lt', null],
    ['tunnel down', { event: 'tunnel', at: 't', state: 'down', reason: 'socket hang up' }, 'down https://calm-otter.loca.lt (socket hang up)', 'warn'],
    ['proxy', { event: 'proxy', at: 't', url: 'http://127.0.0.1:5151' }, '→ http://127.0.0.1:5151', null],
    ['sync failed', { event: 'endpoint', at: 't', action: 'sync-failed', id: 'ep_1', url: 'u', error: 'The tool name "x" already comes from y.' }, 'endpoint failed: The tool name', 'error'],
    ['synced', { event: 'endpoint', at: 't', action: 'synced', id: 'ep_2', url: 'u', tools: [{ name: 'a', enabled: true }] }, 'endpoint synced', 'info'],
    // A dev server still starting is a waiting state: an info flash, no error in the header.
    ['sync waiting', { event: 'endpoint', at: 't', action: 'waiting', id: 'ep_1', url: 'u', error: 'The endpoint answered 500.' }, 'endpoint waiting for the dev server', 'info'],
    ['child exited', { event: 'child', at: 't', state: 'exited', code: 1 }, 'child exited', 'warn'],
    ['recording failing', { event: 'recording', at: 't', state: 'failing', message: 'disk full' }, 'recording failing', 'error'],
    ['error', { event: 'error', at: 't', code: 'internal_error', message: 'Something broke.' }, 'median-dev', 'error'],
    ['output is ignored', { event: 'output', at: 't', stream: 'stdout', line: 'ready' }, 'child running pid 4242', null],
  ])('%s', (_name, daemonEvent, headerText, flash) => {
    const state = run(started(), event(daemonEvent));
    expect(formatHeader(state)).toContain(headerText);
    expect(state.flash?.level ?? null).toBe(flash);
  });

  it('a clash names the other endpoint and whose it is; a failed sync shows the docs’ fix', () => {
    const clash = run(
      started(),
      event({
        event: 'endpoint',
        at: 't',
        action: 'clash',
        id: 'ep_1',
        url: 'https://mine.loca.lt/api/median',
        error: 'The tool name "orderStatus" already comes from https://acme.com/api/median. Tool names have to be unique across every endpoint.',
        otherUrl: 'https://acme.com/api/median',
        otherOwner: 'production',
        tool: 'orderStatus',
        fix: 'median-dev never removes it.',
      }),
    );
    expect(clash.flash?.text).toContain('https://acme.com/api/median is production or a preview.');
    expect(clash.flash?.text).toContain('Fix: median-dev never removes it.');
    const teammate = run(started(), event({ event: 'endpoint', at: 't', action: 'clash', id: 'ep_1', url: 'u', otherUrl: 'https://dana.loca.lt', otherOwner: 'dev-tunnel' }));
    expect(teammate.flash?.text).toContain('https://dana.loca.lt is another dev tunnel (likely a teammate’s).');
    const failed = run(started(), event({ event: 'endpoint', at: 't', action: 'sync-failed', id: 'ep_1', url: 'u', error: 'The endpoint answered 404.', fix: '404 is usually the wrong path.' }));
    expect(failed.flash?.text).toBe('Sync failed: The endpoint answered 404. Fix: 404 is usually the wrong path.');
  });

  it('keeps the production guard’s stop in the header until an endpoint appears', () => {
    const stopped = run(started(), event({ event: 'endpoint', at: 't', action: 'removed', id: 'ep_1', url: 'u' }), event({ event: 'error', at: 't', code: 'production_org', message: 'This MEDIAN_KEY’s organisation already has a production endpoint.', hint: 'Use a development organisation’s key.' }));
    expect(formatHeader(stopped)).toContain('endpoint not connected: this key’s organisation serves production');
    const connected = run(stopped, event({ event: 'endpoint', at: 't', action: 'connected', id: 'ep_2', url: 'https://mine.loca.lt/api/median' }));
    expect(formatHeader(connected)).not.toContain('organisation serves production');
    expect(formatHeader(connected)).toContain('endpoint pending');
    // Attaching later (watch): the snapshot says it.
    const attached = run(initialState({ width: 100, height: 30 }), { type: 'snapshot', snapshot: { ...makeSnapshot([]), endpoint: null, endpointBlocked: 'This MEDIAN_KEY’s organisation…' } });
    expect(formatHeader(attached)).toContain('endpoint not connected: this key’s organisation serves production');
  });

  it('says when the tunnel is open again', () => {
    const state = run(started(), event({ event: 'tunnel', at: 't', state: 'down', reason: 'gone' }), event({ event: 'tunnel', at: 't', state: 'open', url: 'https://calm-otter.loca.lt' }));
    expect(state.flash).toEqual({ level: 'info', text: 'The tunnel is open: https://calm-otter.loca.lt' });
  });

  it('shows the daemon facts from the snapshot', () => {
    const header = formatHeader(started([makeRecord(), makeRecord()]));
    expect(header).toContain('https://calm-otter.loca.lt');
    expect(header).toContain('endpoint synced');
    expect(header).toContain('child running pid 4242');
    expect(header).toContain('key …abcd');
    expect(header).toContain('2 calls');
  });

  it('waits for the daemon before a snapshot', () => {
    expect(formatHeader(initialState({ width: 80, height: 24 }))).toContain('waiting for the daemon');
  });
});

describe('command results and edited input', () => {
  const high = makeRecord({ toolCallId: 'call_high', tool: 'refund_order', risk: 'high' });

  it.each<[string, TuiAction, 'info' | 'error', string]>([
    ['a replay result', { type: 'command-result', command: { command: 'replay', toolCallId: 'call_x' }, ok: true, result: { toolCallId: 'call_x', status: 200, verdict: 'answered', durationMs: 7 } }, 'info', 'HTTP 200 answered in 7 ms'],
    ['a sync result', { type: 'command-result', command: { command: 'sync' }, ok: true, result: { synced: true } }, 'info', 'synced'],
    ['a diagnostics result, as the daemon words it', { type: 'command-result', command: { command: 'diagnostics' }, ok: true, result: { status: 200, durationMs: 13.578524999989895, summary: 'the route answered in 14 ms; Median keeps all 13 characters of it.' } }, 'info', 'Diagnostics: the route answered in 14 ms'],
    ['a failure', { type: 'command-result', command: { command: 'sync' }, ok: false, error: { code: 'no_endpoint', message: 'No endpoint yet.', hint: 'Wait for the tunnel.' } }, 'error', 'No endpoint yet. Wait for the tunnel.'],
  ])('flashes %s', (_name, action, level, text) => {
    const state = run(started(), action);
    expect(state.flash?.level).toBe(level);
    expect(state.flash?.text).toContain(text);
  });

  it('asks for confirmation when the daemon says a replay needs it', () => {
    const summary = { ...high, risk: null };
    const state = run(started([summary]), {
      type: 'command-result',
      command: { command: 'replay', toolCallId: 'call_high' },
      ok: false,
      error: { code: 'replay_needs_confirmation', message: 'needs a yes' },
    });
    expect(state.overlay).toMatchObject({ kind: 'confirm-replay', command: { toolCallId: 'call_high' } });
    expect(reduce(state, key('y')).effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: 'call_high', confirmed: true } }]);
  });

  it.each<[string, string | undefined, unknown[], string | null]>([
    ['a new input is replayed with a new id', '{"orderNumber":"B-2"}', [{ type: 'send', command: { command: 'replay', toolCallId: 'rec_low', newId: true, input: { orderNumber: 'B-2' } } }], null],
    ['a cancelled edit sends nothing', undefined, [], null],
    ['text that is not JSON sends nothing', '{oops', [], null],
    ['JSON that is not an object sends nothing', '[1,2]', [], null],
  ])('%s', (_name, text, effects, overlay) => {
    const low = makeRecord({ id: 'rec_low', toolCallId: 'call_low', risk: 'low' });
    const result = reduce(started([low]), { type: 'input-edited', record: low, text });
    expect(result.effects).toEqual(effects);
    expect(result.state.overlay?.kind ?? null).toBe(overlay);
  });

  it('asks before replaying an edited high-risk call', () => {
    const result = reduce(started([high]), { type: 'input-edited', record: high, text: '{"amount":1}' });
    expect(result.effects).toEqual([]);
    expect(result.state.overlay).toMatchObject({ kind: 'confirm-replay', command: { newId: true, input: { amount: 1 } } });
  });
});

describe('resize', () => {
  it('resizes the viewport and keeps the selection in view', () => {
    const records = Array.from({ length: 40 }, () => makeRecord());
    let state = run(started(records), key('G'));
    const chosen = selectedRecord(state)?.id;
    state = run(state, { type: 'resize', width: 60, height: 20 });
    expect(state.viewport.height).toBeLessThan(9);
    expect(visibleRows(state).some((row) => row.isSelected && row.record.id === chosen)).toBe(true);
    state = run(state, { type: 'resize', width: 200, height: 60 });
    expect(visibleRows(state).some((row) => row.isSelected && row.record.id === chosen)).toBe(true);
  });

  it('on a tiny screen the focused pane takes the body', () => {
    let state = run(started([makeRecord()]), { type: 'resize', width: 40, height: 12 });
    expect(state.viewport.height).toBeGreaterThan(0);
    state = run(state, key('enter'));
    expect(state.viewport.height).toBe(0);
    expect(visibleRows(state)).toEqual([]);
  });
});
