/**
 * Turns what one exchange saw into a CallRecord. Runs once per request,
 * after the caller already has its answer, so it is off the hot path; still,
 * each body is parsed at most once here (the request body was classified
 * when it arrived).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type {
  AnswerFacts,
  CallRecord,
  ClassifiedRequest,
  RecordedResponse,
  RequestKind,
  SignatureStatus,
  VerdictLimits,
} from '../median/index.js';
import { judgeApprovedRun } from '../median/index.js';
import type { BodyCapture } from './body-capture.js';
import { decodeContent, isBinaryContentType, isEncoded, type DecodedBody } from './content-decoding.js';
import { answerDeadlineMs, judgeRecordedAnswer } from './judge-recorded-answer.js';

export interface ExchangeFacts {
  id: string;
  /** Epoch ms the request reached the proxy. */
  receivedAt: number;
  method: string;
  path: string;
  /** As received, credentials masked. */
  requestHeaders: Record<string, string | string[]>;
  requestBody: BodyCapture;
  /** The record a median-dev replay repeats (from its header), else null. */
  replayOf: string | null;
  kind: RequestKind;
  classified: ClassifiedRequest | undefined;
  signature: SignatureStatus;
  /** The dev server's status, or null when no answer started. */
  status: number | null;
  responseHeaders: IncomingHttpHeaders | null;
  responseBody: BodyCapture | null;
  /** True when the answer's body arrived whole (not broken off). */
  responseComplete: boolean;
  /** From arrival to the answer's end (or to the failure). */
  durationMs: number;
  error: { code: string; message: string } | null;
  /** No answer at all (refused, reset before the answer, gave up). */
  failure: 'connection' | 'timeout' | undefined;
}

export interface RecordSettings {
  limits: VerdictLimits;
  /** Bodies are kept up to this many bytes (decoded answers too). */
  recordBodyBytes: number;
  /** Where the route is, for messages that name it. */
  endpointUrl: string;
}

function bodyAsText(bytes: Buffer, contentType: string | string[] | undefined): string {
  return isBinaryContentType(contentType) ? '' : bytes.toString('utf8');
}

/** Whether the answer's recorded copy needs decoding first (`decodeAnswer`, asynchronous). */
export function hasEncodedAnswer(facts: ExchangeFacts): boolean {
  return facts.status !== null && facts.responseHeaders !== null && facts.responseBody !== null && isEncoded(facts.responseHeaders['content-encoding']);
}

/** The answer's body decoded for the record, at most the recording limit of it, off the event loop. */
export function decodeAnswer(facts: ExchangeFacts, settings: RecordSettings): Promise<DecodedBody> {
  const capture = facts.responseBody;
  const wire = capture ? capture.bytes() : Buffer.alloc(0);
  const wholeOnWire = capture !== null && !capture.truncated && facts.responseComplete;
  return decodeContent(wire, facts.responseHeaders?.['content-encoding'], wholeOnWire, settings.recordBodyBytes);
}

/** `decoded`: the answer as `decodeAnswer` gave it, when `hasEncodedAnswer`; otherwise the wire bytes are the answer. */
export function buildCallRecord(facts: ExchangeFacts, settings: RecordSettings, decodedAnswer?: DecodedBody): CallRecord {
  const requestBytes = facts.requestBody.bytes();
  const request: CallRecord['request'] = {
    method: facts.method,
    path: facts.path,
    headers: facts.requestHeaders,
    body: bodyAsText(requestBytes, facts.requestHeaders['content-type']),
  };
  request.size = facts.requestBody.size;
  if (facts.requestBody.truncated) request.truncated = true;

  let response: RecordedResponse | null = null;
  let answerBody: Buffer | null = null;
  let answerSize: number | undefined;
  if (facts.status !== null && facts.responseHeaders !== null) {
    const capture = facts.responseBody;
    const wire = capture ? capture.bytes() : Buffer.alloc(0);
    const wholeOnWire = capture !== null && !capture.truncated && facts.responseComplete;
    const decoded = decodedAnswer ?? { bytes: wire, size: wholeOnWire ? wire.length : undefined };
    // Decoded, the body can outgrow the wire bytes: cut it at the same limit.
    answerBody =
      decoded.bytes.length > settings.recordBodyBytes ? decoded.bytes.subarray(0, settings.recordBodyBytes) : decoded.bytes;
    answerSize = decoded.size ?? capture?.size ?? 0;
    response = {
      status: facts.status,
      headers: facts.responseHeaders as Record<string, string | string[]>,
      body: bodyAsText(answerBody, facts.responseHeaders['content-type']),
      size: answerSize,
    };
    if (!wholeOnWire || decoded.isCut || answerBody.length < decoded.bytes.length) response.truncated = true;
  }

  const deadline = answerDeadlineMs(facts.kind, settings.limits);
  const lateAnswer = facts.status !== null && deadline !== undefined && facts.durationMs > deadline;
  const answer: AnswerFacts = {
    status: facts.status,
    headers: facts.responseHeaders ?? {},
    body: answerBody,
    durationMs: facts.durationMs,
  };
  if (answerSize !== undefined) answer.bodySize = answerSize;
  if (facts.failure !== undefined) answer.failure = facts.failure;
  else if (lateAnswer) answer.failure = 'timeout';
  else if (facts.status !== null && !facts.responseComplete) answer.failure = 'connection';

  const call = facts.classified?.toolCall;
  const judged = judgeRecordedAnswer(facts.kind, answer, settings.limits, settings.endpointUrl);
  // An approved call that failed is what the thread shows: "<tool> did not run: <error>".
  const verdict = call ? judgeApprovedRun(call.tool, call.context, judged) : judged;
  const partial = facts.classified?.partial;
  return {
    id: facts.id,
    toolCallId: call?.toolCallId ?? partial?.toolCallId ?? '',
    tool: call?.tool ?? partial?.tool ?? null,
    conversationId: call?.context.conversationId ?? partial?.conversationId ?? null,
    risk: call?.context.risk ?? partial?.risk ?? null,
    kind: facts.kind,
    receivedAt: new Date(facts.receivedAt).toISOString(),
    durationMs: facts.durationMs,
    request,
    response,
    signature: facts.signature,
    verdict,
    replayOf: facts.replayOf,
    error: facts.error,
    lateAnswer,
  };
}
