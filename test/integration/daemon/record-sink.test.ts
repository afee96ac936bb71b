import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createEventMasker } from '../../../src/daemon/event-masker.js';
import { createRecordSink } from '../../../src/daemon/record-sink.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { createCallStore, openRecorder } from '../../../src/recorder/index.js';
import { KEY, makeRecord } from '../../helpers/make-record.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useSink(onEvent: (event: NewDaemonEvent) => void) {
  const dataDir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-sink-')), (d) => rm(d, { recursive: true, force: true }));
  const recorder = useTeardown(await openRecorder({ dataDir, secrets: [KEY] }), (r) => r.close());
  const masker = createEventMasker([KEY], { redactVisitor: false });
  return { dataDir, sink: createRecordSink(recorder, onEvent, (record) => masker.maskRecord(record)) };
}

describe('the record sink', () => {
  it('settles once stored, and announces the call after that', async () => {
    let isSettled = false;
    const seen: Array<{ event: NewDaemonEvent; isSettled: boolean }> = [];
    const { dataDir, sink } = await useSink((event) => seen.push({ event, isSettled }));
    const record = makeRecord();

    await sink(record).then(() => (isSettled = true));

    // The proxy lets the answer's end go when this promise settles: the event's listeners come after it.
    expect(seen).toEqual([]);
    await vi.waitFor(() => expect(seen.map((s) => s.event.event)).toEqual(['call']));
    expect(seen[0]!.isSettled).toBe(true);
    expect(seen[0]!.event).toMatchObject({ id: record.id, toolCallId: record.toolCallId, verdict: record.verdict.kind, record: { id: record.id } });
    // Durable once its event is out.
    expect((await createCallStore(dataDir).findByToolCallId(record.toolCallId!)).id).toBe(record.id);
  });

  it('announces records stored together in the order they were stored', async () => {
    const events: NewDaemonEvent[] = [];
    const { sink } = await useSink((event) => events.push(event));
    const records = [makeRecord(), makeRecord(), makeRecord()];

    await Promise.all(records.map((record) => sink(record)));

    await vi.waitFor(() => expect(events).toHaveLength(3));
    expect(events.map((e) => (e.event === 'call' ? e.id : e.event))).toEqual(records.map((r) => r.id));
  });
});
