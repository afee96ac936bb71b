import type { CallRecord } from '../median/index.js';
import type { DaemonEvent } from './daemon-events.js';

export type CallEvent = Extract<DaemonEvent, { event: 'call' }>;

/** A `call` event's fields but its record: what its `--json` line holds (docs/cli.md), in that order. */
export type CallEventLine = Omit<CallEvent, 'record'>;

/**
 * The `call` event of a stored record, stamped `at`, whole: one object of one
 * shape a call, which the hub hands to its listeners as it is. Every `call`
 * event has every key, in the same order (`repeats` undefined when the record
 * is no repeat: JSON leaves it out), so the code that reads them at 250 calls
 * a second sees one shape (perf found the daemon's copies of events of many
 * shapes, and the property loads on them, among its costs over its floor).
 */
export function callEventOf(record: CallRecord, at: string): CallEvent {
  return {
    event: 'call',
    at,
    id: record.id,
    toolCallId: record.toolCallId,
    tool: record.tool,
    kind: record.kind,
    status: record.response?.status ?? null,
    signature: record.signature,
    verdict: record.verdict.kind,
    durationMs: record.durationMs,
    replayOf: record.replayOf,
    repeats: record.repeats,
    record,
  };
}

/** The event without its record (the store has it), for its `--json` line: built, not copied key by key. */
export function callEventLine(event: CallEvent): CallEventLine {
  return {
    event: event.event,
    at: event.at,
    id: event.id,
    toolCallId: event.toolCallId,
    tool: event.tool,
    kind: event.kind,
    status: event.status,
    signature: event.signature,
    verdict: event.verdict,
    durationMs: event.durationMs,
    replayOf: event.replayOf,
    repeats: event.repeats,
  };
}
