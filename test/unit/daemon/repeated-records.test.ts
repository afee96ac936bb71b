import { describe, expect, it } from 'vitest';
import { createEventHub } from '../../../src/daemon/event-hub.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { rowOf, type CallPage } from '../../../src/events/inspector-api.js';
import { reduce as reduceInspector } from '../../../src/inspector/reducer.js';
import { createCallIndex } from '../../../src/inspector-server/call-index.js';
import { initialState as inspectorState, rowAt } from '../../../src/inspector/state.js';
import { withRepeats, type CallRecord } from '../../../src/median/index.js';
import { formatRow, initialState, reduce as reduceTui, visibleRows, type TuiState } from '../../../src/tui/index.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

const connect = (): CallRecord => makeRecord({ tool: null, toolCallId: '', kind: 'connect', response: null, verdict: { kind: 'not-answering', agentSees: 'The tool request failed.', warnings: [] } });
const repeated = (record: CallRecord, repeats: number): CallRecord => withRepeats(record, { repeats, lastAt: new Date(Date.parse(record.receivedAt) + repeats * 1000).toISOString() });
/** The sink's event for a repeat: the record's id again, with the count. */
const repeatEvent = (record: CallRecord): DaemonEvent => ({ ...(callEvent(record) as Extract<DaemonEvent, { event: 'call' }>), repeats: record.repeats! });

describe('a repeat updates its record in every view instead of adding a row', () => {
  it('the daemon’s snapshot: replaced in place, not counted again', () => {
    const hub = createEventHub({ version: '0', isDemo: false, keyFingerprint: null, callCount: 0, records: [] });
    const first = connect();
    hub.emit(callEvent(first));
    hub.emit(callEvent(makeRecord()));
    hub.emit(repeatEvent(repeated(first, 2)));
    hub.emit(repeatEvent(repeated(first, 3)));
    const snapshot = hub.snapshot();
    expect(snapshot.callCount).toBe(2);
    expect(snapshot.records.map((r) => [r.id, r.repeats])).toEqual([
      [first.id, 3],
      [snapshot.records[1]!.id, undefined],
    ]);
  });

  it('the terminal UI: one row, showing ×N', () => {
    const first = connect();
    let state: TuiState = reduceTui(initialState({ width: 100, height: 20 }), { type: 'snapshot', snapshot: makeSnapshot([first]) }).state;
    state = reduceTui(state, { type: 'event', event: repeatEvent(repeated(first, 2)) }).state;
    state = reduceTui(state, { type: 'event', event: repeatEvent(repeated(first, 5)) }).state;
    const rows = visibleRows(state);
    expect(rows).toHaveLength(1);
    expect(state.callCount).toBe(1);
    expect(formatRow(rows[0]!.record, 100)).toContain('(connect) ×5');
    expect(formatRow(first, 100)).not.toContain('×');
  });

  it('the inspector’s server index: the row is replaced where it stands, not added', async () => {
    const first = connect();
    const later = makeRecord();
    const index = createCallIndex({ matcherFor: () => null, async *scanRecords() {} });
    await index.load();
    index.add(first);
    index.add(later);
    expect(index.add(repeated(first, 3))).toMatchObject({ id: first.id, repeats: 3 });
    const page = await index.page({ offset: 0, limit: 10, filter: '' });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.id, r.repeats])).toEqual([
      [later.id, undefined],
      [first.id, 3],
    ]);
  });

  it('the browser inspector: the row is replaced where it stands', () => {
    const first = connect();
    const later = makeRecord();
    const page: CallPage = { total: 2, recorded: 2, offset: 0, rows: [rowOf(later), rowOf(first)], filter: '' };
    let state = reduceInspector(inspectorState(), { type: 'page-loaded', page, generation: 0 });
    state = reduceInspector(state, { type: 'call-arrived', row: rowOf(repeated(first, 4)) });
    expect(state.list.total).toBe(2);
    expect(rowAt(state.list, 1)).toMatchObject({ id: first.id, repeats: 4 });
    expect(rowAt(state.list, 0)?.id).toBe(later.id);
  });
});
