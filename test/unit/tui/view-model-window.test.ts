import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { initialState, selectedRecord, visibleRows, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { renderFrame } from '../../../src/tui/render-frame.js';
import { plainText } from '../../../src/tui/styled-text.js';
import { rowCount } from '../../../src/tui/tui-state.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { arrive, key, run } from '../../helpers/run-tui.js';

const WINDOW = { maxRecords: 20, maxBodyChars: Number.MAX_SAFE_INTEGER };

const arrivals = (records: CallRecord[]): TuiAction[] => records.map(arrive);
const many = (count: number, tool = 'lookup_order'): CallRecord[] => Array.from({ length: count }, () => makeRecord({ tool }));
const started = (records: CallRecord[]) => run(initialState({ width: 100, height: 30, recordWindow: WINDOW }), { type: 'snapshot', snapshot: makeSnapshot(records) }).state;
const listText = (state: TuiState) => (renderFrame(state).panels.find((panel) => panel.name === 'list')?.lines ?? []).map(plainText).join('\n');

describe('the TUI keeps a window of the newest calls', () => {
  it('shows the newest N, counts every call, and says once where the older ones are', () => {
    const records = many(35);
    const state = run(started(records.slice(0, 5)), ...arrivals(records.slice(5))).state;
    expect(state.records.size).toBe(20);
    expect(state.callCount).toBe(35);
    expect(rowCount(state)).toBe(20);
    expect(visibleRows(state)[0]?.record.id).toBe(records[34]?.id);
    const list = listText(state);
    expect(list.match(/15 older calls: median-dev calls/g)).toHaveLength(1);
    expect(renderFrame(state).panels[0]?.lines.map(plainText).join('\n')).toContain('35 calls');
    expect(listText(started(records.slice(0, 5)))).not.toContain('older call');
  });

  it('counts no new call for a repeat of a record that dropped off the window', () => {
    const records = many(25);
    const state = run(started(records.slice(0, 5)), ...arrivals(records.slice(5))).state;
    expect(state.records.indexOf(records[0]?.id ?? '')).toBeUndefined();
    const repeated = run(state, arrive({ ...(records[0] as CallRecord), repeats: 2, lastAt: new Date().toISOString() })).state;
    expect(repeated.callCount).toBe(25);
    expect(visibleRows(repeated)[0]?.record.id).toBe(records[0]?.id);
  });

  it('moves a selected call that drops off to the oldest kept one, and r replays that', () => {
    const records = many(20);
    let state = run(started(records), key('G')).state;
    expect(selectedRecord(state)?.id).toBe(records[0]?.id);
    state = run(state, ...arrivals(many(7))).state;
    expect(state.records.start).toBe(7);
    expect(selectedRecord(state)?.id).toBe(records[7]?.id);
    expect(state.selection).toBe(7);
    const replay = run(state, key('r'));
    expect(replay.effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: records[7]?.id } }]);
    // The selected row's place and its detail survive more drops.
    state = run(state, key('enter'), ...arrivals(many(30))).state;
    expect(selectedRecord(state)?.id).toBe(state.records.at(state.records.start)?.id);
    expect(renderFrame(state).panels.find((panel) => panel.name === 'detail')?.lines.map(plainText).join('\n')).toContain(selectedRecord(state)?.toolCallId);
  });

  it('keeps g, G, PageUp and PageDown inside the kept rows', () => {
    let state = run(started(many(5)), ...arrivals(many(40))).state;
    state = run(state, key('G')).state;
    expect(selectedRecord(state)?.id).toBe(state.records.at(state.records.start)?.id);
    state = run(state, key('pagedown'), key('pagedown')).state;
    expect(selectedRecord(state)?.id).toBe(state.records.at(state.records.start)?.id);
    state = run(state, key('pageup'), key('pageup'), key('pageup')).state;
    state = run(state, key('g')).state;
    expect(state.selection).toBe('follow');
    expect(selectedRecord(state)?.id).toBe(state.records.at(state.records.length - 1)?.id);
  });

  it('keeps a filter to the kept calls', () => {
    const mixed = Array.from({ length: 20 }, (_, i) => makeRecord({ tool: i % 2 === 0 ? 'refund_order' : 'lookup_order' }));
    let state = run(started(mixed), ...[...'/tool:refund'].map(key), key('enter')).state;
    expect(rowCount(state)).toBe(10);
    state = run(state, key('G')).state;
    expect(selectedRecord(state)?.id).toBe(mixed[0]?.id);
    state = run(state, ...arrivals(many(9, 'lookup_order'))).state;
    // Refunds at 0, 2, …, 18; kept from 9: 10 … 18.
    expect(rowCount(state)).toBe(5);
    expect(visibleRows(state).map((row) => row.record.id)).toEqual([18, 16, 14, 12, 10].map((i) => mixed[i]?.id));
    expect(selectedRecord(state)?.id).toBe(mixed[10]?.id);
    state = run(state, ...arrivals(many(20, 'lookup_order'))).state;
    expect(rowCount(state)).toBe(0);
    expect(selectedRecord(state)).toBeUndefined();
    expect(listText(state)).toContain('No call matches');
  });
});
