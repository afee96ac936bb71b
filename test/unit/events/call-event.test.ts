import { describe, expect, it } from 'vitest';
import { eventToJsonLine } from '../../../src/cli/format-event.js';
import { callEventLine, callEventOf } from '../../../src/events/index.js';
import { withRepeats } from '../../../src/median/index.js';
import { makeRecord } from '../../helpers/make-record.js';

const AT = '2026-12-06T04:00:00.000Z';
/** The `call` line's keys as docs/cli.md lists them, in the order scripts have always read them. */
const LINE_KEYS = ['event', 'at', 'id', 'toolCallId', 'tool', 'kind', 'status', 'signature', 'verdict', 'durationMs', 'replayOf'];

describe('a call event', () => {
  it('its --json line holds the record\'s facts, keys in their order, no record, `repeats` only on a repeat', () => {
    const record = makeRecord();
    const line = JSON.parse(eventToJsonLine(callEventOf(record, AT))) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(LINE_KEYS);
    expect(line).toEqual({
      event: 'call',
      at: AT,
      id: record.id,
      toolCallId: record.toolCallId,
      tool: record.tool,
      kind: record.kind,
      status: record.response!.status,
      signature: record.signature,
      verdict: record.verdict.kind,
      durationMs: record.durationMs,
      replayOf: null,
    });

    const repeated = withRepeats(record, { repeats: 3, lastAt: AT });
    const again = JSON.parse(eventToJsonLine(callEventOf(repeated, AT))) as Record<string, unknown>;
    expect(Object.keys(again)).toEqual([...LINE_KEYS, 'repeats']);
    expect(again.repeats).toBe(3);
  });

  it('has one shape, whatever the record: the same keys in the same order', () => {
    const plain = callEventOf(makeRecord(), AT);
    const repeat = callEventOf(withRepeats(makeRecord({ tool: null, response: null }), { repeats: 2, lastAt: AT }), AT);
    expect(Object.keys(repeat)).toEqual(Object.keys(plain));
    expect(repeat.status).toBeNull();
  });

  it('its line leaves out the record and nothing else: a field added to the event reaches the line', () => {
    const event = callEventOf(withRepeats(makeRecord(), { repeats: 2, lastAt: AT }), AT);
    const { record: _record, ...rest } = event;
    expect(Object.keys(callEventLine(event))).toEqual(Object.keys(rest));
    expect(callEventLine(event)).toEqual(rest);
  });
});
