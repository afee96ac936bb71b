import type { CallRecord } from '../median/call-record.js';
import type { CallRow, InspectorStatus, ReplayAnswer, ToolsAnswer } from '../events/inspector-api.js';
import { isJsonTooDeep, MAX_JSON_DEPTH, parseBoundedJson } from '../shared/safe-json.js';

/**
 * Everything the page shows, in one value. Views draw it; only the reducer
 * (reducer.ts) makes a new one from an action; the controller turns actions
 * into requests. Shared in spirit with the TUI's view model.
 */
export interface InspectorState {
  session: 'checking' | 'ok' | 'none';
  live: 'connecting' | 'live' | 'lost';
  status: InspectorStatus | null;
  tab: 'calls' | 'status';
  list: ListState;
  selectedId: string | null;
  detail: DetailState | null;
  replay: ReplayState | null;
  /** The replay whose row the page waits for, to open its diff. */
  awaitingReplay: { toolCallId: string; replayOf: string } | null;
  diff: DiffState | null;
  tools: ToolsAnswer | null;
  flash: { text: string; level: 'info' | 'error' } | null;
}

export interface ListState {
  /** The filter the rows are for; `draft` is the text in the box. */
  filter: string;
  draft: string;
  /** Rows the (filtered) list has, and records the daemon holds. */
  total: number;
  recorded: number;
  /** Loaded rows by position: 0 is the oldest of the list, total - 1 the newest (shown on top). */
  rows: ReadonlyMap<number, CallRow>;
  /** Bumped when the filter changes: pages asked for under an older one are dropped. */
  generation: number;
  /** The list stays on the newest call until the user scrolls away (tail -f). */
  isFollowing: boolean;
  /** `total` when the user scrolled away (the calls above since: total - pausedAtTotal), else null. */
  pausedAtTotal: number | null;
  error: { code: string; message: string } | null;
}

export interface DetailState {
  id: string;
  record: CallRecord | null;
  error: { code: string; message: string } | null;
  curl: string | null;
}

export interface ReplayState {
  record: CallRecord;
  /** The input as JSON text in the editor. */
  draft: string;
  isNewId: boolean;
  /** Sign at now + this many ms (0: now; -299000: near the five-minute edge; ±301000: stale). */
  atOffsetMs: number;
  /** Why the draft cannot be sent (not JSON, or the docs' invalid_input message), or null. */
  problem: string | null;
  /** Risk reviewed/high: the user is asked to confirm, naming tool and input. */
  isConfirming: boolean;
  isSending: boolean;
  error: { code: string; message: string } | null;
  /** Why this call cannot be replayed from here at all (its input is too deep to read), or null: nothing is sent. */
  refusal: { code: string; message: string } | null;
}

export interface DiffState {
  original: CallRecord;
  replay: CallRecord;
  answer: ReplayAnswer | null;
}

/** Rows kept loaded at most; the farthest from view are dropped first. */
export const MAX_CACHED_ROWS = 3_000;

export function initialState(): InspectorState {
  return {
    session: 'checking',
    live: 'connecting',
    status: null,
    tab: 'calls',
    list: { filter: '', draft: '', total: 0, recorded: 0, rows: new Map(), generation: 0, isFollowing: true, pausedAtTotal: null, error: null },
    selectedId: null,
    detail: null,
    replay: null,
    awaitingReplay: null,
    diff: null,
    tools: null,
    flash: null,
  };
}

/** The position of the row drawn at `index` (0 = top = newest). */
export function positionAt(list: ListState, index: number): number {
  return list.total - 1 - index;
}

/** The row drawn at `index`, when loaded. */
export function rowAt(list: ListState, index: number): CallRow | undefined {
  return list.rows.get(positionAt(list, index));
}

/** The first of `indices` (top-down) whose row is not loaded, or undefined. */
export function firstMissing(list: ListState, from: number, to: number): number | undefined {
  for (let index = Math.max(0, from); index < Math.min(list.total, to); index++) {
    if (!list.rows.has(positionAt(list, index))) return index;
  }
  return undefined;
}

/** Calls that came in above the rows in view since the user scrolled away. */
export function newSincePaused(list: ListState): number {
  return list.pausedAtTotal === null ? 0 : Math.max(0, list.total - list.pausedAtTotal);
}

export function needsConfirmation(risk: string | null | undefined): boolean {
  return risk === 'reviewed' || risk === 'high';
}

/**
 * A call whose body nests too deep to read has no input the editor could
 * show: its replay is refused here, as the daemon refuses it, never sent
 * with a stand-in input.
 */
export function replayRefusalOf(record: CallRecord): { code: string; message: string } | null {
  if (!isJsonTooDeep(record.request.body)) return null;
  return {
    code: 'replay_too_deep',
    message: `This call nests deeper than ${MAX_JSON_DEPTH} levels: its input cannot be shown or edited here, and a replay never sends another one. \`median-dev replay ${record.toolCallId}\` sends it again as it was recorded.`,
  };
}

/** The tool input of a recorded tool call (parsed from its body), or {}. */
export function inputOf(record: CallRecord): unknown {
  try {
    const body = parseBoundedJson(record.request.body) as { input?: unknown };
    return body.input ?? {};
  } catch {
    return {};
  }
}
