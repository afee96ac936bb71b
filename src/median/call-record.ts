import type { RequestKind, Risk } from './protocol.js';
import type { SignatureStatus } from './signature.js';
import type { Verdict } from './verdict-types.js';

/**
 * One recorded request to the route (SPEC §2.2). The shape is a public
 * contract: `calls --json`, `show --json`, the store and the TUI all use it.
 * Fields past the SPEC's minimum are additions, never renames.
 */
export interface RecordedMessage {
  headers: Record<string, string | string[]>;
  /** The body as text (UTF-8), cut at the recording limit. */
  body: string;
  /** True when `body` was cut at the recording limit. */
  truncated?: boolean;
  /** Full size in bytes, when known. */
  size?: number;
}

export interface RecordedRequest extends RecordedMessage {
  method: string;
  path: string;
}

export interface RecordedResponse extends RecordedMessage {
  status: number;
}

export interface CallRecord {
  /** Our own id for the record: `rec_` + 24 hex (sortable by time). */
  id: string;
  /** From the body; for requests that are not tool calls, empty. */
  toolCallId: string;
  tool: string | null;
  conversationId: string | null;
  risk: Risk | null;
  kind: RequestKind;
  /** ISO 8601 time the request reached the proxy. */
  receivedAt: string;
  durationMs: number | null;
  request: RecordedRequest;
  response: RecordedResponse | null;
  signature: SignatureStatus;
  verdict: Verdict;
  replayOf: string | null;
  /** Why the answer never came back (target down, client gone, …), if so. */
  error?: { code: string; message: string } | null;
  /** The dev server's eventual answer came after the 10 s limit. */
  lateAnswer?: boolean;
  /**
   * median-dev opening the route again with the same outcome (a dead dev
   * server): how many times this record's request was made in all (2 or
   * more), and when the last one was. Absent on a record made once.
   */
  repeats?: number;
  lastAt?: string;
}

/**
 * The small line the store appends when a record repeats, instead of a new
 * record: readers apply the newest one to the record `repeatOf` names.
 */
export interface RepeatLine {
  repeatOf: string;
  repeats: number;
  lastAt: string;
}

/** Whether two records are the same outcome of the same request: a repeat rather than a new line. */
export function repeatKeyOf(record: CallRecord): string | undefined {
  if (record.kind !== 'connect' || record.replayOf !== null) return undefined;
  return [record.request.method, record.request.path, record.response?.status ?? '-', record.error?.code ?? '-', record.verdict.kind, record.signature].join(' ');
}

/** The record with a repeat line applied. */
export function withRepeats(record: CallRecord, repeat: Pick<RepeatLine, 'repeats' | 'lastAt'>): CallRecord {
  return { ...record, repeats: repeat.repeats, lastAt: repeat.lastAt };
}

/**
 * The header by which median-dev's own replays name the record they repeat.
 * Our proxy records it as `replayOf` and strips it, so the route sees the
 * request exactly as Median would send it. Its value is a replay marker
 * (replay-marker.ts): the record id bound to the proxy's replay key, so a
 * request from the public side (or a tunnel server that saw one) cannot
 * pass itself off as a replay.
 */
export const REPLAY_OF_HEADER = 'x-median-dev-replay-of';
const RECORD_ID_PATTERN = /^rec_[0-9a-f]{24}$/;

export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && RECORD_ID_PATTERN.test(value);
}

/**
 * A record id: `rec_` + 12 hex of the time in ms + 12 random hex, so ids sort
 * by arrival time as text.
 */
export function newRecordId(now: number = Date.now()): string {
  if (poolOffset + 6 > pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  let random = '';
  for (let i = 0; i < 6; i++) random += HEX[pool[poolOffset + i]!];
  poolOffset += 6;
  return `rec_${now.toString(16).padStart(12, '0')}${random}`;
}

// Random bytes drawn 4 KiB at a time: one system call per ~680 ids, not one per id (hot path).
const pool = new Uint8Array(4096);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
