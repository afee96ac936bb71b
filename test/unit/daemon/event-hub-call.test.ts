import { describe, expect, it } from 'vitest';
import { createEventHub } from '../../../src/daemon/event-hub.js';
import { callEventOf, type DaemonEvent } from '../../../src/events/index.js';
import { withRepeats } from '../../../src/median/index.js';
import { makeRecord } from '../../helpers/make-record.js';

const hub = () => createEventHub({ version: '0.1.0', isDemo: false, keyFingerprint: null, callCount: 0, records: [] });

describe('the event hub and call events', () => {
  it('hands a stamped call event to every listener as it is, and counts it', () => {
    const events = hub();
    const seen: DaemonEvent[] = [];
    events.on((event) => seen.push(event));
    const record = makeRecord();
    const call = callEventOf(record, '2026-12-06T04:00:00.000Z');

    events.emit(call);

    // No copy a call: the object the record sink built, its `at` kept.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(call);
    expect(events.snapshot().callCount).toBe(1);
    expect(events.snapshot().records.map((r) => r.id)).toEqual([record.id]);

    // A repeat updates its record, no new call.
    events.emit(callEventOf(withRepeats(record, { repeats: 2, lastAt: record.receivedAt }), '2026-12-06T04:00:01.000Z'));
    expect(events.snapshot().callCount).toBe(1);
    expect(events.snapshot().records[0]!.repeats).toBe(2);
  });

  it('stamps every other event in a copy, leaving what it was given alone', () => {
    const events = hub();
    const seen: DaemonEvent[] = [];
    events.on((event) => seen.push(event));
    const given = { event: 'log' as const, level: 'info' as const, message: 'hello' };

    events.emit(given);

    expect(seen[0]).not.toBe(given);
    expect(seen[0]).toEqual({ ...given, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(given).not.toHaveProperty('at');
  });
});
