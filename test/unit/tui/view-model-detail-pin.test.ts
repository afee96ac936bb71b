import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { initialState, selectedRecord, type TuiState } from '../../../src/tui/index.js';
import { renderFrame } from '../../../src/tui/render-frame.js';
import { plainText } from '../../../src/tui/styled-text.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { arrive, key, run } from '../../helpers/run-tui.js';

const started = (records: CallRecord[], size = { width: 100, height: 30 }) => run(initialState(size), { type: 'snapshot', snapshot: makeSnapshot(records) }).state;
const labelOf = (state: TuiState, name: string) => renderFrame(state).panels.find((panel) => panel.name === name)?.label ?? '';
const detailText = (state: TuiState) => (renderFrame(state).panels.find((panel) => panel.name === 'detail')?.lines ?? []).map(plainText).join('\n');

describe('an open detail pins its call', () => {
  it.each([
    ['split screen', { width: 100, height: 30 }],
    ['80×24 (the detail takes the screen)', { width: 80, height: 24 }],
  ])('%s: new calls do not replace it, r replays it, Esc follows the newest again', (_name, size) => {
    const read = makeRecord({ tool: 'lookup_order' });
    let { state } = run(started([makeRecord(), read], size), key('enter'));
    expect(state.focus).toBe('detail');
    state = run(state, arrive(makeRecord({ tool: 'cancel_order' })), arrive(makeRecord({ tool: 'refund_order', risk: 'low' }))).state;
    expect(selectedRecord(state)?.id).toBe(read.id);
    expect(detailText(state)).toContain(read.toolCallId);
    expect(labelOf(state, 'detail')).toContain('held (Esc: follow newest)');

    const replay = run(state, key('r'));
    expect(replay.effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: read.id } }]);

    const closed = run(replay.state, key('escape')).state;
    expect(closed.focus).toBe('list');
    expect(closed.selection).toBe('follow');
    expect(selectedRecord(closed)?.tool).toBe('refund_order');
    expect(closed.viewport.top).toBe(0);
    const next = run(closed, arrive(makeRecord({ tool: 'ship_order' }))).state;
    expect(selectedRecord(next)?.tool).toBe('ship_order');
  });

  it('Enter closes it as Esc does, and the list says it is held meanwhile', () => {
    let { state } = run(started([makeRecord()]), key('enter'), arrive(makeRecord({ tool: 'cancel_order' })));
    expect(labelOf(state, 'list')).toContain('held while the detail is open (Esc: follow)');
    state = run(state, key('enter')).state;
    expect(state.selection).toBe('follow');
    expect(selectedRecord(state)?.tool).toBe('cancel_order');
    expect(labelOf(state, 'list')).toContain('following newest');
  });

  it('a call the user moved to stays selected after the detail closes', () => {
    const records = [makeRecord(), makeRecord(), makeRecord()];
    const { state } = run(started(records), key('j'), key('enter'), arrive(makeRecord()), key('escape'));
    expect(state.selection).not.toBe('follow');
    expect(selectedRecord(state)?.id).toBe(records[1]?.id);
    expect(state.isFollowPaused).toBe(false);
  });

  it('the detail opened on an empty list pins nothing', () => {
    const { state } = run(started([]), key('enter'), arrive(makeRecord({ tool: 'cancel_order' })));
    expect(state.selection).toBe('follow');
    expect(selectedRecord(state)?.tool).toBe('cancel_order');
  });
});
