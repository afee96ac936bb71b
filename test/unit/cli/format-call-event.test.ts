import { describe, expect, it } from 'vitest';
import { eventToJsonLine, eventToLogLine } from '../../../src/cli/format-event.js';
import { createStyle } from '../../../src/cli/terminal-style.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { makeRecord } from '../../helpers/make-record.js';

const plain = createStyle(false);

/** A `call` event as the record sink emits it, its record embedded. */
function callEvent(record = makeRecord({ tool: 'order\u001b[2JStatus' })): Extract<DaemonEvent, { event: 'call' }> {
  return {
    event: 'call',
    at: '2026-12-01T19:00:00.123Z',
    id: record.id,
    toolCallId: record.toolCallId,
    tool: record.tool,
    kind: record.kind,
    status: 200,
    signature: 'valid',
    verdict: 'answered',
    durationMs: 12,
    replayOf: null,
    record,
  };
}

/** The record's fields, each read counted: what the line builders walk of it. */
function countingRecord(): { record: ReturnType<typeof makeRecord>; reads: () => number } {
  let reads = 0;
  const real = makeRecord();
  const record = new Proxy(real, {
    get(target, property, receiver) {
      reads += 1;
      return Reflect.get(target, property, receiver);
    },
    ownKeys(target) {
      reads += 1;
      return Reflect.ownKeys(target);
    },
  });
  return { record, reads: () => reads };
}

describe('a call event\'s lines', () => {
  it('the plain line is the same with its record embedded or not, controls escaped', () => {
    const event = callEvent();
    const { record: _record, ...bare } = event;
    const line = eventToLogLine(event, plain)!;
    expect(line).toBe(eventToLogLine(bare, plain));
    expect(line).toContain('order\\u001b[2JStatus');
    expect(line).not.toContain('\u001b');
  });

  it('neither the plain line nor the --json line reads the embedded record', () => {
    const { record, reads } = countingRecord();
    const event = callEvent(record);
    const before = reads();
    eventToLogLine(event, plain);
    eventToJsonLine(event);
    expect(reads() - before).toBe(0);
  });

  it('the --json line is the event without its record, exact JSON', () => {
    const event = callEvent();
    const { record: _record, ...bare } = event;
    expect(JSON.parse(eventToJsonLine(event))).toEqual(JSON.parse(JSON.stringify(bare)));
    expect(eventToJsonLine(event)).not.toContain('"record"');
  });
});
