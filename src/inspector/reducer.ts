import type { CallRecord } from '../median/call-record.js';
import { checkInputAgainstSchema } from '../median/input-schema.js';
import type { CallPage, CallRow, InspectorStatus, ReplayAnswer, ToolsAnswer } from '../events/inspector-api.js';
import { MAX_CACHED_ROWS, inputOf, replayRefusalOf, type InspectorState, type ListState, type ReplayState } from './state.js';
import { stringifySafely } from '../shared/safe-json.js';

type ApiError = { code: string; message: string };

export type InspectorAction =
  | { type: 'session-checked'; isOk: boolean }
  | { type: 'live-changed'; live: InspectorState['live'] }
  | { type: 'status-received'; status: InspectorStatus }
  | { type: 'tab-chosen'; tab: InspectorState['tab'] }
  | { type: 'page-loaded'; page: CallPage; generation: number; keepNear?: number }
  | { type: 'page-failed'; error: ApiError; generation: number }
  | { type: 'call-arrived'; row: CallRow }
  | { type: 'filter-typed'; text: string }
  | { type: 'filter-applied' }
  | { type: 'list-scrolled'; isAtTop: boolean }
  | { type: 'row-selected'; id: string }
  | { type: 'detail-loaded'; record: CallRecord }
  | { type: 'detail-failed'; id: string; error: ApiError }
  | { type: 'curl-loaded'; id: string; curl: string }
  | { type: 'tools-loaded'; tools: ToolsAnswer }
  | { type: 'replay-opened'; record: CallRecord; isNewId?: boolean }
  | { type: 'replay-edited'; draft: string }
  | { type: 'replay-option'; isNewId?: boolean; atOffsetMs?: number }
  | { type: 'replay-confirm-asked' }
  | { type: 'replay-sending' }
  | { type: 'replay-answered'; answer: ReplayAnswer }
  | { type: 'replay-failed'; error: ApiError }
  | { type: 'replay-closed' }
  | { type: 'diff-opened'; original: CallRecord; replay: CallRecord }
  | { type: 'diff-closed' }
  | { type: 'flash'; text: string; level: 'info' | 'error' };

export function reduce(state: InspectorState, action: InspectorAction): InspectorState {
  switch (action.type) {
    case 'session-checked':
      return { ...state, session: action.isOk ? 'ok' : 'none' };
    case 'live-changed':
      return { ...state, live: action.live };
    case 'status-received':
      return { ...state, status: action.status };
    case 'tab-chosen':
      return { ...state, tab: action.tab };
    case 'page-loaded':
      return action.generation === state.list.generation ? { ...state, list: withPage(state.list, action.page, action.keepNear) } : state;
    case 'page-failed':
      return action.generation === state.list.generation ? { ...state, list: { ...state.list, error: action.error } } : state;
    case 'call-arrived':
      return callArrived(state, action.row);
    case 'filter-typed':
      return { ...state, list: { ...state.list, draft: action.text } };
    case 'filter-applied': {
      const filter = state.list.draft.trim();
      if (filter === state.list.filter) return state;
      return { ...state, list: { ...state.list, filter, total: 0, rows: new Map(), generation: state.list.generation + 1, isFollowing: true, pausedAtTotal: null, error: null } };
    }
    case 'list-scrolled':
      if (state.list.isFollowing === action.isAtTop) return state;
      return { ...state, list: { ...state.list, isFollowing: action.isAtTop, pausedAtTotal: action.isAtTop ? null : state.list.total } };
    case 'row-selected':
      if (state.selectedId === action.id && state.detail) return state;
      return { ...state, selectedId: action.id, detail: { id: action.id, record: null, error: null, curl: null } };
    case 'detail-loaded':
      if (state.detail?.id !== action.record.id) return state;
      return { ...state, detail: { ...state.detail, record: action.record, error: null } };
    case 'detail-failed':
      if (state.detail?.id !== action.id) return state;
      return { ...state, detail: { ...state.detail, error: action.error } };
    case 'curl-loaded':
      if (state.detail?.id !== action.id) return state;
      return { ...state, detail: { ...state.detail, curl: action.curl } };
    case 'tools-loaded':
      return { ...state, tools: action.tools, replay: state.replay ? validated(state.replay, action.tools) : null };
    case 'replay-opened': {
      const refusal = replayRefusalOf(action.record);
      const replay: ReplayState = {
        record: action.record,
        draft: refusal ? '' : stringifySafely(inputOf(action.record), 2, '{}'),
        isNewId: action.isNewId ?? false,
        atOffsetMs: 0,
        problem: null,
        isConfirming: false,
        isSending: false,
        error: null,
        refusal,
      };
      return { ...state, replay: refusal ? replay : validated(replay, state.tools) };
    }
    case 'replay-edited':
      return state.replay ? { ...state, replay: validated({ ...state.replay, draft: action.draft, isConfirming: false, error: null }, state.tools) } : state;
    case 'replay-option':
      if (!state.replay) return state;
      return {
        ...state,
        replay: {
          ...state.replay,
          ...(action.isNewId !== undefined ? { isNewId: action.isNewId } : {}),
          ...(action.atOffsetMs !== undefined ? { atOffsetMs: action.atOffsetMs } : {}),
        },
      };
    case 'replay-confirm-asked':
      return state.replay ? { ...state, replay: { ...state.replay, isConfirming: true } } : state;
    case 'replay-sending':
      return state.replay ? { ...state, replay: { ...state.replay, isSending: true, isConfirming: false, error: null } } : state;
    case 'replay-answered':
      return {
        ...state,
        replay: null,
        awaitingReplay: { toolCallId: action.answer.toolCallId, replayOf: action.answer.replayOf },
        flash: { text: `Replayed: HTTP ${action.answer.status}, ${action.answer.verdict}. Its diff opens when the call is recorded.`, level: 'info' },
      };
    case 'replay-failed':
      return state.replay ? { ...state, replay: { ...state.replay, isSending: false, isConfirming: false, error: action.error } } : { ...state, flash: { text: action.error.message, level: 'error' } };
    case 'replay-closed':
      return { ...state, replay: null };
    case 'diff-opened':
      return { ...state, diff: { original: action.original, replay: action.replay, answer: null }, awaitingReplay: null, flash: null };
    case 'diff-closed':
      return { ...state, diff: null };
    case 'flash':
      return { ...state, flash: { text: action.text, level: action.level } };
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** The draft's problem: not JSON, or the first failing field in the docs' invalid_input words. */
function validated(replay: ReplayState, tools: ToolsAnswer | null): ReplayState {
  if (replay.refusal) return replay;
  let input: unknown;
  try {
    input = JSON.parse(replay.draft);
  } catch (error) {
    return { ...replay, problem: `Not JSON: ${(error as Error).message}` };
  }
  const tool = tools?.tools?.find((t) => t.name === replay.record.tool);
  const check = checkInputAgainstSchema(tool?.inputSchema ?? {}, input);
  return { ...replay, problem: check.ok ? null : check.message };
}

function withPage(list: ListState, page: CallPage, keepNear = 0): ListState {
  const rows = new Map(list.rows);
  // Positions count from the oldest row, so rows loaded earlier keep theirs as calls arrive.
  page.rows.forEach((row, i) => rows.set(page.total - 1 - (page.offset + i), row));
  return { ...list, total: page.total, recorded: page.recorded, rows: trimmed(rows, page.total - 1 - keepNear), error: null };
}

/** Drops the rows farthest from `near` once more than MAX_CACHED_ROWS are loaded. */
function trimmed(rows: Map<number, CallRow>, near: number): Map<number, CallRow> {
  if (rows.size <= MAX_CACHED_ROWS) return rows;
  const kept = [...rows.keys()].sort((a, b) => Math.abs(a - near) - Math.abs(b - near)).slice(0, MAX_CACHED_ROWS);
  return new Map(kept.map((position) => [position, rows.get(position)!]));
}

function callArrived(state: InspectorState, row: CallRow): InspectorState {
  const list = state.list;
  // A repeat of a call the list shows (same id): that row is updated in place.
  if (row.repeats !== undefined) {
    const at = [...list.rows].find(([, shown]) => shown.id === row.id)?.[0];
    return at === undefined ? state : { ...state, list: { ...list, rows: new Map(list.rows).set(at, row) } };
  }
  // A page asked for after the call was recorded may hold it already.
  if (list.rows.get(list.total - 1)?.id === row.id) return state;
  // Under a filter the server decides whether the call belongs; the controller reloads the top.
  const next: ListState =
    list.filter === ''
      ? { ...list, total: list.total + 1, recorded: list.recorded + 1, rows: new Map(list.rows).set(list.total, row) }
      : { ...list, recorded: list.recorded + 1 };
  return { ...state, list: next };
}
