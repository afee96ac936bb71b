import { describe, expect, it } from 'vitest';
import { reduce, type InspectorAction } from '../../../src/inspector/reducer.js';
import { sideBySide } from '../../../src/inspector/side-by-side.js';
import { initialState, newSincePaused, rowAt, type InspectorState } from '../../../src/inspector/state.js';
import { rowOf, type CallPage } from '../../../src/events/inspector-api.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

const run = (actions: InspectorAction[], state: InspectorState = initialState()) => actions.reduce(reduce, state);

function page(records: ReturnType<typeof makeRecord>[], offset: number, total: number, filter = ''): CallPage {
  return { total, recorded: total, offset, rows: records.map(rowOf), filter };
}

describe('the inspector view model', () => {
  it('places a page by position, so rows keep their place as calls arrive on top', () => {
    const [a, b, c] = [makeRecord(), makeRecord(), makeRecord()];
    let state = run([{ type: 'page-loaded', page: page([c!, b!, a!], 0, 3), generation: 0 }]);
    expect([0, 1, 2].map((i) => rowAt(state.list, i)?.id)).toEqual([c!.id, b!.id, a!.id]);
    const d = makeRecord();
    state = reduce(state, { type: 'call-arrived', row: rowOf(d) });
    expect(state.list.total).toBe(4);
    expect([0, 1, 2, 3].map((i) => rowAt(state.list, i)?.id)).toEqual([d.id, c!.id, b!.id, a!.id]);
    // The same call again (a page asked for after it came) is not a second row.
    expect(reduce(state, { type: 'call-arrived', row: rowOf(d) })).toBe(state);
  });

  it('follows until the user scrolls away, counts the calls that came above since, and follows again at the top', () => {
    let state = run([{ type: 'page-loaded', page: page([makeRecord(), makeRecord()], 0, 2), generation: 0 }]);
    expect(state.list).toMatchObject({ isFollowing: true, pausedAtTotal: null });
    state = reduce(state, { type: 'list-scrolled', isAtTop: false });
    expect(state.list).toMatchObject({ isFollowing: false, pausedAtTotal: 2 });
    // Scrolling further down changes nothing.
    expect(reduce(state, { type: 'list-scrolled', isAtTop: false })).toBe(state);
    state = run([{ type: 'call-arrived', row: rowOf(makeRecord()) }, { type: 'call-arrived', row: rowOf(makeRecord()) }], state);
    expect(newSincePaused(state.list)).toBe(2);
    expect(state.list.isFollowing).toBe(false);
    state = reduce(state, { type: 'list-scrolled', isAtTop: true });
    expect(state.list).toMatchObject({ isFollowing: true, pausedAtTotal: null });
    expect(newSincePaused(state.list)).toBe(0);
    // A new filter starts at the top, following.
    state = run([{ type: 'list-scrolled', isAtTop: false }, { type: 'filter-typed', text: 'tool:x' }, { type: 'filter-applied' }], state);
    expect(state.list).toMatchObject({ isFollowing: true, pausedAtTotal: null });
  });

  it('drops pages asked for under an older filter, and leaves a filtered list to the server', () => {
    const a = makeRecord({ tool: 'refund_order' });
    let state = run([{ type: 'filter-typed', text: ' tool:refund ' }, { type: 'filter-applied' }]);
    expect(state.list).toMatchObject({ filter: 'tool:refund', generation: 1, total: 0 });
    expect(reduce(state, { type: 'page-loaded', page: page([a], 0, 1), generation: 0 })).toBe(state);
    state = reduce(state, { type: 'page-loaded', page: page([a], 0, 1, 'tool:refund'), generation: 1 });
    expect(rowAt(state.list, 0)?.id).toBe(a.id);
    state = reduce(state, { type: 'call-arrived', row: rowOf(makeRecord()) });
    expect(state.list).toMatchObject({ total: 1, recorded: 2 });
  });

  it('checks the replay input as it is typed: not JSON, then the docs invalid_input words from the manifest schema', () => {
    const record = makeRecord({ tool: 'lookup_order', input: { orderNumber: 'A-1' } });
    const tools = {
      tools: [{ name: 'lookup_order', risk: 'low', inputSchema: { type: 'object', properties: { orderNumber: { type: 'string' } }, required: ['orderNumber'], additionalProperties: false } }],
      readAt: '2026-01-01T00:00:00.000Z',
      error: null,
    };
    let state = run([{ type: 'replay-opened', record }]);
    expect(state.replay).toMatchObject({ draft: '{\n  "orderNumber": "A-1"\n}', problem: null, isNewId: false });
    state = run([{ type: 'tools-loaded', tools }, { type: 'replay-edited', draft: '{"orderNumber": 5' }], state);
    expect(state.replay!.problem).toMatch(/^Not JSON: /);
    state = reduce(state, { type: 'replay-edited', draft: '{"orderNumber": 5}' });
    expect(state.replay!.problem).toBe('orderNumber must be a string.');
    state = reduce(state, { type: 'replay-edited', draft: '{}' });
    expect(state.replay!.problem).toBe('orderNumber is required.');
    state = reduce(state, { type: 'replay-edited', draft: '{"orderNumber": "A-2"}' });
    expect(state.replay!.problem).toBeNull();
  });

  it('refuses to replay a call too deep to read, rather than send {} as its input', () => {
    const body = `{"tool":"orderStatus","toolCallId":"call_deep","input":{"orderNumber":${'['.repeat(1_000)}${']'.repeat(1_000)}},"context":{"conversationId":"c","risk":"low","visitor":{"verified":false}}}`;
    const record = makeRecord({ tool: 'orderStatus', toolCallId: 'call_deep', request: { ...makeRecord().request, body } });
    let state = run([{ type: 'replay-opened', record }]);
    expect(state.replay).toMatchObject({ draft: '', refusal: { code: 'replay_too_deep' } });
    expect(state.replay!.refusal!.message).toContain('median-dev replay call_deep');
    // Typing an input, or the manifest arriving, does not lift it.
    state = run([{ type: 'replay-edited', draft: '{}' }, { type: 'tools-loaded', tools: { tools: [], readAt: null, error: null } }], state);
    expect(state.replay).toMatchObject({ refusal: { code: 'replay_too_deep' } });
    expect(run([{ type: 'replay-opened', record: makeRecord() }]).replay!.refusal).toBeNull();
  });

  it('a replay answered waits for its row; the diff replaces the wait', () => {
    const original = makeRecord();
    const replay = makeRecord({ replayOf: original.id });
    let state = run([{ type: 'replay-opened', record: original }, { type: 'replay-sending' }]);
    expect(state.replay!.isSending).toBe(true);
    state = reduce(state, { type: 'replay-answered', answer: { toolCallId: replay.toolCallId, replayOf: original.id, status: 200, durationMs: 3, verdict: 'answered' } });
    expect(state.replay).toBeNull();
    expect(state.awaitingReplay).toEqual({ toolCallId: replay.toolCallId, replayOf: original.id });
    state = reduce(state, { type: 'diff-opened', original, replay });
    expect(state.awaitingReplay).toBeNull();
    expect(state.diff).toMatchObject({ original: { id: original.id }, replay: { id: replay.id } });
  });

  it('a failed replay keeps the editor open with the error', () => {
    const state = run([
      { type: 'replay-opened', record: makeRecord({ risk: 'high' }) },
      { type: 'replay-confirm-asked' },
      { type: 'replay-sending' },
      { type: 'replay-failed', error: { code: 'route_unreachable', message: 'down' } },
    ]);
    expect(state.replay).toMatchObject({ isSending: false, isConfirming: false, error: { code: 'route_unreachable' } });
  });
});

describe('the side-by-side diff', () => {
  it('pairs removed lines with the added ones after them', () => {
    expect(
      sideBySide([
        { op: ' ', text: '{' },
        { op: '-', text: '  "a": 1' },
        { op: '-', text: '  "b": 2' },
        { op: '+', text: '  "a": 3' },
        { op: ' ', text: '}' },
        { op: '+', text: 'extra' },
      ]),
    ).toEqual([
      { left: '{', right: '{', kind: 'same' },
      { left: '  "a": 1', right: '  "a": 3', kind: 'changed' },
      { left: '  "b": 2', right: null, kind: 'removed' },
      { left: '}', right: '}', kind: 'same' },
      { left: null, right: 'extra', kind: 'added' },
    ]);
  });
});
