import type { CallRecord } from '../median/call-record.js';
import type { DaemonSnapshot, HealState } from './daemon-events.js';

/**
 * The browser inspector's JSON API: what the daemon's inspector server sends
 * and the page in src/inspector reads. Types and pure helpers only, so both
 * sides (Node and the browser bundle) import this one file.
 */

/** One list row: what the list draws, without bodies (a page of them is small). */
export interface CallRow {
  id: string;
  toolCallId: string;
  tool: string | null;
  kind: CallRecord['kind'];
  risk: CallRecord['risk'];
  receivedAt: string;
  durationMs: number | null;
  status: number | null;
  verdict: CallRecord['verdict']['kind'];
  signature: CallRecord['signature'];
  warningCount: number;
  /** Set for an approved call that failed at the route: the thread shows "<tool> did not run: <error>". */
  didNotRun?: string;
  replayOf: string | null;
  /** Made this many times with the same outcome (a dead route opened again and again); absent when once. */
  repeats?: number;
}

export function rowOf(record: CallRecord): CallRow {
  return {
    id: record.id,
    toolCallId: record.toolCallId,
    tool: record.tool,
    kind: record.kind,
    risk: record.risk,
    receivedAt: record.receivedAt,
    durationMs: record.durationMs,
    status: record.response?.status ?? null,
    verdict: record.verdict.kind,
    signature: record.signature,
    warningCount: record.verdict.warnings.length,
    ...(record.verdict.didNotRun === undefined ? {} : { didNotRun: record.verdict.didNotRun }),
    replayOf: record.replayOf,
    ...(record.repeats === undefined ? {} : { repeats: record.repeats }),
  };
}

/** `GET /api/calls?offset=&limit=&filter=`: rows newest first. */
export interface CallPage {
  /** Rows the (filtered) list has. */
  total: number;
  /** Records the inspector holds, filter or not. */
  recorded: number;
  offset: number;
  rows: CallRow[];
  /** The filter text the page was cut from ('' for none). */
  filter: string;
}

/** A tunnel drop, a hostname change or an endpoint heal, with how long it took. */
export interface TimelineEntry {
  kind: 'tunnel-drop' | 'hostname-change' | 'endpoint-heal';
  startedAt: string;
  /** Null while it lasts. */
  endedAt: string | null;
  durationMs: number | null;
  /** `ok`, `failed`, or `open` while it lasts. */
  outcome: 'ok' | 'failed' | 'open';
  detail: string;
  /** An endpoint heal under way: the step it is at (`changing`, `connecting`, `syncing`). */
  step?: HealState;
}

/** `GET /api/status` and the live channel's `status` lines. */
export interface InspectorStatus {
  daemon: Omit<DaemonSnapshot, 'records'>;
  recording: 'ok' | 'failing';
  timeline: TimelineEntry[];
}

/** A tool from the last manifest read, for the replay editor. */
export interface ManifestTool {
  name: string;
  risk: string | null;
  inputSchema: unknown;
}

/** `GET /api/tools`: the last manifest read (null when it could not be read). */
export interface ToolsAnswer {
  tools: ManifestTool[] | null;
  readAt: string | null;
  error: { code: string; message: string } | null;
}

/** `POST /api/replay`. */
export interface ReplayBody {
  /** The record to replay (record id or toolCallId). */
  id: string;
  newId?: boolean;
  input?: unknown;
  /** Sign at now + offset ms (negative: an older signature). */
  atOffsetMs?: number;
  confirmed?: boolean;
  /** The original was not validly signed and the user confirmed re-signing it anyway. */
  allowUnsignedOriginal?: boolean;
}

/** `POST /api/calls/{id}/save`: where the call was saved as a test (median-calls/…), and whether it was there already. */
export interface SaveCallAnswer {
  file: string;
  isNew: boolean;
}

export interface ReplayAnswer {
  toolCallId: string;
  replayOf: string;
  status: number;
  durationMs: number;
  verdict: string;
}

/** One line of the live channel (`POST /api/live`, newline-delimited JSON). */
export type LiveMessage =
  | { type: 'hello'; status: InspectorStatus; recorded: number }
  | { type: 'call'; row: CallRow }
  | { type: 'status'; status: InspectorStatus }
  | { type: 'cleared' };

/** Every error answer: `{error: {code, message, hint?}}`. */
export interface ApiError {
  error: { code: string; message: string; hint?: string };
}
