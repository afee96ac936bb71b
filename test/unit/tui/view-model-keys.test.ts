import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { initialState, reduce, selectedRecord, type TuiEffect, type TuiState } from '../../../src/tui/index.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

/** Oldest first: A … E. The list shows E (newest) on top. */
const RECORDS: Record<string, CallRecord> = {
  A: makeRecord({ id: 'rec_A', toolCallId: 'call_A', tool: 'lookup_order', risk: 'low' }),
  B: makeRecord({ id: 'rec_B', toolCallId: 'call_B', tool: 'refund_order', risk: 'high' }),
  C: makeRecord({ id: 'rec_C', toolCallId: 'call_C', tool: 'cancel_order', risk: 'reviewed' }),
  D: makeRecord({ id: 'rec_D', toolCallId: '', tool: null, risk: null, kind: 'manifest', request: { method: 'GET', path: '/api/median', headers: {}, body: '' } }),
  E: makeRecord({ id: 'rec_E', toolCallId: 'call_E', tool: 'lookup_order', risk: 'medium' }),
};
const LABEL_OF = new Map(Object.entries(RECORDS).map(([label, record]) => [record.id, label]));

function baseState(options: { isDemo?: boolean } = {}): TuiState {
  const state = initialState({ width: 100, height: 30, isDemo: options.isDemo ?? false });
  return reduce(state, { type: 'snapshot', snapshot: makeSnapshot(Object.values(RECORDS)) }).state;
}

function press(state: TuiState, keys: string[]): { state: TuiState; effects: TuiEffect[] } {
  let result = { state, effects: [] as TuiEffect[] };
  for (const key of keys) result = reduce(result.state, { type: 'key', key });
  return result;
}

interface KeyCase {
  name: string;
  before?: string[];
  isDemo?: boolean;
  key: string;
  selected?: string;
  isFollowing?: boolean;
  focus?: 'list' | 'detail';
  overlay?: string | null;
  effects?: unknown[];
  flash?: 'info' | 'warn' | 'error' | null;
  draft?: string;
  filter?: string | null;
  detailScroll?: number | 'max' | 'positive';
}

const replay = (toolCallId: string, extra: Record<string, unknown> = {}) => ({ type: 'send', command: { command: 'replay', toolCallId, ...extra } });

const CASES: KeyCase[] = [
  // movement; row 0 is the newest (E) and means "follow"
  { name: 'k on the newest stays following', key: 'k', selected: 'E', isFollowing: true, effects: [] },
  { name: 'j moves to the next older call', key: 'j', selected: 'D', isFollowing: false, effects: [] },
  { name: 'down is j', key: 'down', selected: 'D', isFollowing: false },
  { name: 'k back onto the newest follows again', before: ['j'], key: 'k', selected: 'E', isFollowing: true },
  { name: 'up is k', before: ['j', 'j'], key: 'up', selected: 'D', isFollowing: false },
  { name: 'pagedown moves a page (clamped at the oldest)', key: 'pagedown', selected: 'A', isFollowing: false },
  { name: 'pageup moves a page back to the newest', before: ['G'], key: 'pageup', selected: 'E', isFollowing: true },
  { name: 'home selects the newest and follows', before: ['j', 'j'], key: 'home', selected: 'E', isFollowing: true },
  { name: 'g is home', before: ['j', 'j'], key: 'g', selected: 'E', isFollowing: true },
  { name: 'end selects the oldest', key: 'end', selected: 'A', isFollowing: false },
  { name: 'G is end', key: 'G', selected: 'A', isFollowing: false },
  // focus
  { name: 'enter focuses the detail pane', key: 'enter', focus: 'detail', selected: 'E' },
  { name: 'escape goes back to the list', before: ['enter'], key: 'escape', focus: 'list' },
  { name: 'enter in the detail pane goes back too', before: ['enter'], key: 'enter', focus: 'list' },
  { name: 'j in the detail pane scrolls it', before: ['enter'], key: 'j', selected: 'E', detailScroll: 1, focus: 'detail' },
  { name: 'k in the detail pane scrolls back', before: ['enter', 'j', 'j'], key: 'k', detailScroll: 1 },
  { name: 'G in the detail pane scrolls to the end', before: ['enter'], key: 'G', detailScroll: 'max' },
  { name: 'pagedown in the detail pane scrolls a page', before: ['enter'], key: 'pagedown', detailScroll: 'positive' },
  { name: 'g in the detail pane scrolls to the top', before: ['enter', 'G'], key: 'g', detailScroll: 0 },
  // replay
  { name: 'r replays a low/medium-risk call at once', key: 'r', effects: [replay('rec_E')], overlay: null, flash: 'info' },
  { name: 'r on a reviewed call asks first', before: ['j', 'j'], key: 'r', overlay: 'confirm-replay', effects: [] },
  { name: 'y confirms the replay', before: ['j', 'j', 'r'], key: 'y', overlay: null, effects: [replay('rec_C', { confirmed: true })] },
  { name: 'n cancels the replay', before: ['j', 'j', 'r'], key: 'n', overlay: null, effects: [], flash: 'info' },
  { name: 'escape cancels the replay', before: ['j', 'j', 'r'], key: 'escape', overlay: null, effects: [] },
  { name: 'other keys leave the question open', before: ['j', 'j', 'r'], key: 'x', overlay: 'confirm-replay', effects: [] },
  { name: 'n replays with a new id', key: 'n', effects: [replay('rec_E', { newId: true })] },
  { name: 'n on a high-risk call asks first', before: ['j', 'j', 'j'], key: 'n', overlay: 'confirm-replay', effects: [] },
  { name: 'y after n keeps the new id', before: ['j', 'j', 'j', 'n'], key: 'y', effects: [replay('rec_B', { newId: true, confirmed: true })] },
  { name: 'r on a request that is not a tool call explains', before: ['j'], key: 'r', effects: [], flash: 'warn' },
  { name: 'e asks the screen to edit the input', key: 'e', effects: [{ type: 'edit-input', record: RECORDS.E }] },
  { name: 'e on a manifest read explains', before: ['j'], key: 'e', effects: [], flash: 'warn' },
  // filter
  { name: '/ opens the filter input', key: '/', overlay: 'filter-input', draft: '' },
  { name: 'typing goes into the filter (keys do not act)', before: ['/', 'r', 'e'], key: 'f', draft: 'ref', effects: [], overlay: 'filter-input' },
  { name: 'q while typing is text', before: ['/'], key: 'q', draft: 'q', effects: [] },
  { name: 'backspace deletes a character', before: ['/', 'a', 'b'], key: 'backspace', draft: 'a' },
  { name: 'C-u empties the filter input', before: ['/', 'a', 'b'], key: 'C-u', draft: '' },
  { name: 'enter applies the filter', before: ['/', ...'tool:refund'], key: 'enter', overlay: null, filter: 'tool:refund', selected: 'B', isFollowing: true },
  { name: 'escape clears the filter while typing', before: ['/', ...'refund', 'enter', '/'], key: 'escape', overlay: null, filter: null },
  { name: 'escape in the list clears an applied filter', before: ['/', ...'refund', 'enter'], key: 'escape', filter: null, selected: 'E' },
  { name: '/ again edits the applied filter', before: ['/', ...'refund', 'enter'], key: '/', draft: 'refund', overlay: 'filter-input' },
  // other commands
  { name: 'c copies the call as curl', key: 'c', effects: [{ type: 'copy-curl', record: RECORDS.E, text: expect.stringContaining("curl -X POST 'http://127.0.0.1:4141/api/median'") }] },
  { name: 'x exports HAR', key: 'x', effects: [{ type: 'export-har' }] },
  { name: 't saves the selected call as a test', key: 't', effects: [{ type: 'save-call', record: RECORDS.E }], flash: 'info' },
  { name: 't on a manifest read explains', before: ['j'], key: 't', effects: [], flash: 'warn' },
  { name: 's asks for a sync', key: 's', effects: [{ type: 'send', command: { command: 'sync' } }] },
  { name: 'd sends diagnostics', key: 'd', effects: [{ type: 'send', command: { command: 'diagnostics' } }] },
  { name: 'C-r restarts the dev server', key: 'C-r', effects: [{ type: 'send', command: { command: 'restart-child' } }] },
  { name: 'R restarts the dev server too, never replays', key: 'R', effects: [{ type: 'send', command: { command: 'restart-child' } }] },
  { name: 'h outside the demo only explains', key: 'h', effects: [], flash: 'warn' },
  { name: 'h in the demo simulates a hostname change', isDemo: true, key: 'h', effects: [{ type: 'send', command: { command: 'simulate-hostname-change' } }] },
  { name: '? opens the help', key: '?', overlay: 'help' },
  { name: 'any key closes the help without acting', before: ['?'], key: 'q', overlay: null, effects: [] },
  { name: 'q quits', key: 'q', effects: [{ type: 'quit' }] },
  { name: 'C-c quits even while typing a filter', before: ['/'], key: 'C-c', effects: [{ type: 'quit' }], overlay: null },
  { name: 'the next key clears a flash', before: ['h'], key: 'j', flash: null },
  { name: 'an unknown key does nothing', key: 'z', effects: [], selected: 'E', isFollowing: true, overlay: null },
];

describe('view model keys', () => {
  it.each(CASES)('$name', (c) => {
    const before = press(baseState({ isDemo: c.isDemo ?? false }), c.before ?? []).state;
    const { state, effects } = reduce(before, { type: 'key', key: c.key });
    if (c.selected !== undefined) expect(LABEL_OF.get(selectedRecord(state)?.id ?? '')).toBe(c.selected);
    if (c.isFollowing !== undefined) expect(state.selection === 'follow').toBe(c.isFollowing);
    if (c.focus !== undefined) expect(state.focus).toBe(c.focus);
    if (c.overlay !== undefined) expect(state.overlay?.kind ?? null).toBe(c.overlay);
    if (c.effects !== undefined) expect(effects).toEqual(c.effects);
    if (c.flash !== undefined) expect(state.flash?.level ?? null).toBe(c.flash);
    if (c.draft !== undefined) expect(state.filter.draft).toBe(c.draft);
    if (c.filter !== undefined) expect(state.filter.view?.filter.text ?? null).toBe(c.filter);
    if (c.detailScroll === 'max') {
      expect(state.detailScroll).toBeGreaterThan(0);
      expect(reduce(state, { type: 'key', key: 'j' }).state.detailScroll).toBe(state.detailScroll);
    } else if (c.detailScroll === 'positive') {
      expect(state.detailScroll).toBeGreaterThan(1);
    } else if (c.detailScroll !== undefined) {
      expect(state.detailScroll).toBe(c.detailScroll);
    }
  });

  it('never changes the state it was given', () => {
    const state = baseState();
    const copy = structuredClone({ selection: state.selection, overlay: state.overlay, focus: state.focus, count: state.records.length });
    for (const key of ['j', 'r', '/', 'a', 'enter', 'G', 'enter', '?']) reduce(state, { type: 'key', key });
    expect({ selection: state.selection, overlay: state.overlay, focus: state.focus, count: state.records.length }).toEqual(copy);
  });

  it('keeps the confirm question on the call it was asked for', () => {
    const asked = press(baseState(), ['j', 'j', 'r']).state;
    expect(asked.overlay).toMatchObject({ kind: 'confirm-replay', record: { id: 'rec_C' }, command: { toolCallId: 'rec_C' } });
  });
});

describe('a replay row replays the call the agent made', () => {
  it('r on a replay sends the original record id, never a replay of the replay', () => {
    const original = makeRecord({ id: 'rec_orig', toolCallId: 'call_X', tool: 'lookup_order', risk: 'low' });
    const replayRow = makeRecord({ id: 'rec_rep', toolCallId: 'call_X', tool: 'lookup_order', risk: 'low', replayOf: 'rec_orig' });
    const state = reduce(initialState({ width: 100, height: 30, isDemo: false }), { type: 'snapshot', snapshot: makeSnapshot([original, replayRow]) }).state;
    // The newest row (the replay) is selected.
    expect(selectedRecord(state)?.id).toBe('rec_rep');
    expect(press(state, ['r']).effects).toEqual([replay('rec_orig')]);
  });
});
