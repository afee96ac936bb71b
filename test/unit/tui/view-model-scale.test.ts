import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { initialState, reduce, selectedRecord, visibleRows, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { DEFAULT_RECORD_WINDOW } from '../../../src/tui/record-list.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

const COUNT = 100_000;

function bigState(): TuiState {
  const template = makeRecord();
  const records = Array.from({ length: COUNT }, (_, i) => ({
    ...template,
    id: `rec_big_${i}`,
    toolCallId: `call_big_${i}`,
    tool: i % 10 === 0 ? 'refund_order' : 'lookup_order',
  }));
  return reduce(initialState({ width: 120, height: 40 }), { type: 'snapshot', snapshot: makeSnapshot(records) }).state;
}

/** Mean time of an action over many runs, chaining the state as the TUI does. */
function meanMs(start: TuiState, actionsOf: () => TuiAction[], rounds = 20): { ms: number; state: TuiState } {
  let state = start;
  for (const action of actionsOf()) state = reduce(state, action).state; // warm up
  const batches = Array.from({ length: rounds }, actionsOf);
  const begin = performance.now();
  for (const batch of batches) for (const action of batch) state = reduce(state, action).state;
  const actions = batches.reduce((sum, batch) => sum + batch.length, 0);
  return { ms: (performance.now() - begin) / actions, state };
}

const KEYS = ['j', 'k', 'down', 'up', 'pagedown', 'pageup', 'G', 'g', 'end', 'home', 'enter', 'j', 'escape', 'r', '?', 'x'];

describe('100,000 records', () => {
  const state = bigState();

  it('visibleRows returns only the rows in the viewport', () => {
    expect(state.records.length).toBe(COUNT);
    expect(state.records.size).toBe(DEFAULT_RECORD_WINDOW.maxRecords);
    const rows = visibleRows(state);
    expect(rows).toHaveLength(state.viewport.height);
    expect(rows[0]?.record.toolCallId).toBe(`call_big_${COUNT - 1}`);
  });

  it('a key press takes well under 5 ms', () => {
    const { ms, state: after } = meanMs(state, () => KEYS.map((key) => ({ type: 'key', key })));
    expect(ms).toBeLessThan(5);
    expect(after.records.length).toBe(COUNT);
  });

  it('a key press with a filter set takes well under 5 ms', () => {
    let filtered = state;
    for (const key of ['/', ...'tool:refund', 'enter']) filtered = reduce(filtered, { type: 'key', key }).state;
    expect(visibleRows(filtered)).toHaveLength(filtered.viewport.height);
    const { ms } = meanMs(filtered, () => KEYS.map((key) => ({ type: 'key', key })));
    expect(ms).toBeLessThan(5);
  });

  it('a call arriving takes well under 5 ms, following or not', () => {
    const arrivals = (): TuiAction[] => Array.from({ length: 50 }, () => ({ type: 'event', event: callEvent(makeRecord()) }));
    const following = meanMs(state, arrivals, 4);
    expect(following.ms).toBeLessThan(5);
    expect(selectedRecord(following.state)?.id).toBe(following.state.records.at(following.state.records.length - 1)?.id);
    const moved = reduce(following.state, { type: 'key', key: 'pagedown' }).state;
    const chosen = selectedRecord(moved)?.id;
    const still = meanMs(moved, arrivals, 4);
    expect(still.ms).toBeLessThan(5);
    expect(selectedRecord(still.state)?.id).toBe(chosen);
  });

  it('an updated call (same id again) takes well under 5 ms', () => {
    let index = 0;
    const updates = (): TuiAction[] =>
      Array.from({ length: 50 }, () => {
        const record = state.records.at(state.records.start + ((index++ * 997) % state.records.size)) as CallRecord;
        return { type: 'event', event: callEvent({ ...record, lateAnswer: true }) };
      });
    const updated = meanMs(state, updates, 8);
    expect(updated.ms).toBeLessThan(5);
    expect(updated.state.records.length).toBe(COUNT);
    expect(updated.state.records.at(state.records.start + 997)?.lateAnswer).toBe(true);
    expect(state.records.at(state.records.start + 997)?.lateAnswer).toBeUndefined();
  });
});
