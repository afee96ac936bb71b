import type { CallRecord } from '../median/call-record.js';
import { SIGNATURE_HEADER, signatureAge } from '../median/signature.js';
import { parseBoundedJson, stringifySafely } from '../shared/safe-json.js';

/** How a replay differed from the call it repeats, and what came of it (`show <toolCallId>`). */
export interface ReplaySummary {
  id: string;
  receivedAt: string;
  toolCallId: string;
  /** Sent with the original's toolCallId (a route's idempotency key). */
  isSameId: boolean;
  isInputEdited: boolean;
  /** Signed this far from the time it was sent (`--at-offset`), when more than ten seconds. */
  offsetMs: number | null;
  status: number | null;
  signature: CallRecord['signature'];
  verdict: CallRecord['verdict']['kind'];
}

/** A signature this far off the arrival time was signed so on purpose, not by a slow send. */
const OFFSET_NOTICED_MS = 10_000;

function inputOf(record: CallRecord): string | undefined {
  try {
    return stringifySafely((parseBoundedJson(record.request.body) as { input?: unknown }).input);
  } catch {
    return undefined; // not JSON: no input to compare
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function summarizeReplay(original: CallRecord, replay: CallRecord): ReplaySummary {
  const age = signatureAge(headerText(replay.request.headers[SIGNATURE_HEADER]), Date.parse(replay.receivedAt));
  return {
    id: replay.id,
    receivedAt: replay.receivedAt,
    toolCallId: replay.toolCallId,
    isSameId: replay.toolCallId === original.toolCallId,
    isInputEdited: inputOf(replay) !== inputOf(original),
    offsetMs: age !== undefined && Math.abs(age) > OFFSET_NOTICED_MS ? -age : null,
    status: replay.response?.status ?? null,
    signature: replay.signature,
    verdict: replay.verdict.kind,
  };
}

/** "same id", "new id call_…, edited input, signed 299 s in the past". */
export function describeReplayHow(summary: ReplaySummary): string {
  const parts = [summary.isSameId ? 'same id' : `new id ${summary.toolCallId}`];
  if (summary.isInputEdited) parts.push('edited input');
  if (summary.offsetMs !== null) {
    parts.push(`signed ${Math.round(Math.abs(summary.offsetMs) / 1000)} s in the ${summary.offsetMs < 0 ? 'past' : 'future'}`);
  }
  return parts.join(', ');
}
