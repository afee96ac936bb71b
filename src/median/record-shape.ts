import type { CallRecord, RepeatLine } from './call-record.js';

/**
 * Whether a value read from the store has the shape every reader of a record
 * relies on (SPEC §2.2): the types of its fields, not their vocabulary (a
 * newer median-dev may add a verdict kind or a field; those still fit). A
 * line written by hand, by another tool or by a broken writer that does not
 * fit is skipped by the store and counted, instead of breaking `calls`,
 * `show`, the HAR export or the terminal UI on its first `.slice`.
 */
export function isCallRecord(value: unknown): value is CallRecord {
  if (!isObject(value)) return false;
  return (
    typeof value.id === 'string' &&
    typeof value.toolCallId === 'string' &&
    isStringOrNull(value.tool) &&
    isStringOrNull(value.conversationId) &&
    isStringOrNull(value.risk) &&
    typeof value.kind === 'string' &&
    typeof value.receivedAt === 'string' &&
    !Number.isNaN(Date.parse(value.receivedAt)) &&
    (value.durationMs === null || isFiniteNumber(value.durationMs)) &&
    isRequest(value.request) &&
    (value.response === null || isResponse(value.response)) &&
    typeof value.signature === 'string' &&
    isVerdict(value.verdict) &&
    isStringOrNull(value.replayOf) &&
    (value.error === undefined || value.error === null || (isObject(value.error) && typeof value.error.code === 'string' && typeof value.error.message === 'string')) &&
    (value.lateAnswer === undefined || typeof value.lateAnswer === 'boolean') &&
    (value.repeats === undefined || isFiniteNumber(value.repeats)) &&
    (value.lastAt === undefined || typeof value.lastAt === 'string')
  );
}

/** Whether a line read from the store is a repeat line (see `RepeatLine`), not a record. */
export function isRepeatLine(value: unknown): value is RepeatLine {
  return isObject(value) && typeof value.repeatOf === 'string' && isFiniteNumber(value.repeats) && typeof value.lastAt === 'string';
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isStringOrNull(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isHeaders(value: unknown): boolean {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string')));
}

function isMessage(value: unknown): value is Loose {
  return (
    isObject(value) &&
    isHeaders(value.headers) &&
    typeof value.body === 'string' &&
    (value.truncated === undefined || typeof value.truncated === 'boolean') &&
    (value.size === undefined || isFiniteNumber(value.size))
  );
}

function isRequest(value: unknown): boolean {
  return isMessage(value) && typeof value.method === 'string' && typeof value.path === 'string';
}

function isResponse(value: unknown): boolean {
  return isMessage(value) && isFiniteNumber(value.status);
}

function isVerdict(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.kind === 'string' &&
    typeof value.agentSees === 'string' &&
    Array.isArray(value.warnings) &&
    value.warnings.every((w) => isObject(w) && typeof w.code === 'string' && typeof w.message === 'string') &&
    (value.callError === undefined || typeof value.callError === 'string')
  );
}
