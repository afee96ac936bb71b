import { RUN_MESSAGES, type Risk, type Verdict, type Visitor } from '../median/index.js';
import { MedianDevError, type ErrorCode } from '../shared/index.js';
import { ApiError } from './api-error.js';
import type { EmulatedCall } from './tool-caller.js';

/** A `reviewed` or `high` call held for a decision (the reviewer's, then maybe a teammate's). */
export interface ApprovalRequest {
  /** The approval request's id: the call's `toolCallId` once it runs. */
  id: string;
  tool: string;
  input: Record<string, unknown>;
  conversationId: string;
  visitor: Visitor;
  risk: Risk;
  /** The endpoint that served the tool when the request was made. */
  endpointId: string;
  endpointUrl: string;
  requestedAt: string;
  state: 'pending' | 'approved' | 'denied' | 'expired';
  /** While pending: whose decision it waits for. */
  waitingFor?: 'reviewer' | 'teammate';
  decidedBy?: string;
  decidedAt?: string;
  expiredBecause?: 'conversation-ended' | 'no-decision';
  /** The run, once approved (a run that reported nothing gets its `runError` from the hourly check). */
  run?: EmulatedCall;
}

/**
 * How the approved run ends, for what the emulator cannot otherwise produce:
 * `no-result` — the call is sent but its run never reports (the hourly check
 * marks it after 10 minutes); `request-failed` — Median itself failed while
 * running it (nothing is sent).
 */
export type ApprovedRunFault = 'no-result' | 'request-failed';

/** What the automated reviewer does with a `reviewed` call: approve it, or hand it to a teammate. */
export type ReviewerDecision = 'approve' | 'hand-to-teammate';

export interface ApproveOptions {
  /** Who approves: a teammate's name (default "A teammate"); "The reviewer" for the automated reviewer. */
  as?: string;
  /** The same as `as` (the name the call's `approvedBy` carries). */
  approvedBy?: string;
  /** The teammate edited the input before approving: checked like a teammate's run. */
  input?: Record<string, unknown>;
  fault?: ApprovedRunFault;
}

/** A teammate runs a tool themselves, at any risk: in a conversation, or as a visitor. */
export interface TeammateRun {
  tool: string;
  input?: Record<string, unknown>;
  conversationId?: string;
  /** The visitor's `externalId` to run as (without a conversation). */
  as?: string;
  /** The teammate's name (`approvedBy`); default "A teammate". */
  by?: string;
}

/** OUR statuses for the docs' approval and run errors. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  approval_not_found: 404,
  approval_expired: 410,
  approval_settled: 409,
  conversation_archived: 409,
  too_many_running: 429,
  invalid_input: 400,
  invalid_request: 400,
};

export function runError(code: ErrorCode, message: string): MedianDevError {
  return new MedianDevError(code, message, { details: { status: STATUS[code] ?? 400 } });
}

export function coded(error: unknown): unknown {
  return error instanceof ApiError ? new MedianDevError(error.code, error.message, { details: { status: error.status } }) : error;
}

/** A run that did not happen (or reported nothing): the docs' call error, as the thread shows it. */
export function didNotRun(base: Omit<EmulatedCall, 'status' | 'body' | 'durationMs' | 'verdict'>, error: string): EmulatedCall {
  const thread = RUN_MESSAGES.didNotRun(base.tool, error);
  const verdict: Verdict = { kind: 'not-answering', agentSees: thread, warnings: [], callError: error, didNotRun: thread };
  return { ...base, status: null, body: null, durationMs: 0, verdict, runError: error };
}

