import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connectControl, startControlServer } from '../../../src/control/index.js';
import { createEventHub, type EventHub } from '../../../src/daemon/event-hub.js';
import { createRecordSink } from '../../../src/daemon/record-sink.js';
import { SNAPSHOT_RECORDS } from '../../../src/daemon/snapshot-records.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { createCallStore, openRecorder, type Recorder } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The daemon's wiring of daemon-context.ts and start-daemon.ts: a real recorder, the real sink, a hub over the real store. */
async function useStoreHub(options: { before?: CallRecord[] } = {}) {
  const dataDir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-hub-')), (d) => rm(d, { recursive: true, force: true }));
  if (options.before) {
    const earlier = await openRecorder({ dataDir, secrets: [] });
    for (const record of options.before) await earlier.append(record);
    await earlier.close();
  }
  const store = createCallStore(dataDir);
  const newest = await store.list({ limit: 1 });
  const hub = createEventHub({
    version: 'test',
    isDemo: false,
    keyFingerprint: null,
    callCount: await store.count(),
    store: { read: (limit) => store.list({ limit }), newestAtStart: newest[0]?.id },
  });
  const recorder: Recorder = useTeardown(await openRecorder({ dataDir, secrets: [] }), (r) => r.close());
  const sink = createRecordSink(recorder, (event) => hub.emit(event), (record) => {
    hub.keepUnstored(record);
    return record;
  });
  const calls: DaemonEvent[] = [];
  hub.on((event) => void (event.event === 'call' && calls.push(event)));
  return { dataDir, hub, recorder, sink, calls };
}

const idsOf = (records: readonly CallRecord[]): string[] => records.map((r) => r.id);
const connect = (): CallRecord => makeRecord({ tool: null, toolCallId: '', kind: 'connect', response: null, verdict: { kind: 'not-answering', agentSees: 'The tool request failed.', warnings: [] } });

describe('what a client that attaches starts from, read from the store', () => {
  it('has the newest records in the order announced, while the hub holds none of them', async () => {
    const { hub, sink, calls } = await useStoreHub();
    const records = Array.from({ length: SNAPSHOT_RECORDS + 20 }, () => makeRecord());
    await Promise.all(records.map((record) => sink(record)));
    await vi.waitFor(() => expect(calls).toHaveLength(records.length));

    // The bound: nothing a call brought stays in the hub (no whole record, no list of them).
    expect(hub.snapshot().records).toEqual([]);
    const snapshot = await hub.attachSnapshot();
    expect(snapshot.callCount).toBe(records.length);
    expect(idsOf(snapshot.records)).toEqual(idsOf(records.slice(-SNAPSHOT_RECORDS)));
    expect(snapshot.records.at(-1)).toEqual(records.at(-1));
  });

  it('leaves a stored call whose event has not gone out to its event: each call once', async () => {
    const { hub, sink, calls } = await useStoreHub();
    const first = makeRecord();
    await sink(first);
    await vi.waitFor(() => expect(calls).toHaveLength(1));

    const second = makeRecord();
    await sink(second);
    // Stored; its `call` event goes out on the next turn, after this snapshot was asked for.
    const attaching = hub.attachSnapshot();
    expect(calls).toHaveLength(1);
    const later: DaemonEvent[] = [];
    hub.on((event) => void later.push(event));
    expect(idsOf((await attaching).records)).toEqual([first.id]);
    await vi.waitFor(() => expect(later.map((e) => (e.event === 'call' ? e.id : e.event))).toEqual([second.id]));
  });

  it('shows a repeated connect once with its count, and counts it once', async () => {
    const { hub, sink, calls } = await useStoreHub();
    for (let n = 0; n < 3; n += 1) await sink(connect());
    await vi.waitFor(() => expect(calls).toHaveLength(3));

    const snapshot = await hub.attachSnapshot();
    expect(snapshot.callCount).toBe(1);
    expect(snapshot.records.map((r) => [r.kind, r.repeats])).toEqual([['connect', 3]]);
  });

  it('starts from the records an earlier run stored', async () => {
    const before = [makeRecord(), makeRecord()];
    const { hub, sink, calls } = await useStoreHub({ before });
    const now = makeRecord();
    await sink(now);
    await vi.waitFor(() => expect(calls).toHaveLength(1));

    const snapshot = await hub.attachSnapshot();
    expect(snapshot.callCount).toBe(3);
    expect(idsOf(snapshot.records)).toEqual(idsOf([...before, now]));
  });

  it('after a clear, has only the calls announced since', async () => {
    const { hub, sink, calls } = await useStoreHub({ before: [makeRecord()] });
    await sink(makeRecord());
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    hub.clearRecords();
    expect((await hub.attachSnapshot()).records).toEqual([]);

    const after = [makeRecord(), makeRecord()];
    for (const record of after) await sink(record);
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(idsOf((await hub.attachSnapshot()).records)).toEqual(idsOf(after));
  });

  it('keeps the calls the store could not take, in the order they came', async () => {
    const { hub, recorder, sink, calls } = await useStoreHub();
    const stored = makeRecord();
    await sink(stored);
    await recorder.close(); // appends fail from now on: the sink announces from memory
    const unstored = makeRecord();
    await sink(unstored);
    await vi.waitFor(() => expect(calls).toHaveLength(2));

    expect(idsOf(hub.snapshot().records)).toEqual([unstored.id]);
    expect(idsOf((await hub.attachSnapshot()).records)).toEqual([stored.id, unstored.id]);
  });
});

describe('the control channel over the store-backed hub', () => {
  it('gives a client that connects late the calls so far, then each new call once', async () => {
    const { dataDir, hub, sink, calls } = await useStoreHub();
    const server = useTeardown(
      await startControlServer({ dataDir, pid: process.pid, instanceId: 'hub-test', proxyUrl: 'http://127.0.0.1:1', snapshot: () => hub.attachSnapshot(), handleCommand: async () => null }),
      (s) => s.close(),
    );
    hub.on((event) => server.broadcast(event));
    const early = [makeRecord(), makeRecord(), makeRecord()];
    for (const record of early) await sink(record);
    await vi.waitFor(() => expect(calls).toHaveLength(3));

    const client = useTeardown(await connectControl({ port: server.port, token: server.token }), (c) => c.close());
    const seen: string[] = [];
    client.onEvent((event) => void (event.event === 'call' && seen.push(event.id)));
    expect(idsOf(client.snapshot.records)).toEqual(idsOf(early));
    const late = makeRecord();
    await sink(late);
    await vi.waitFor(() => expect(seen).toEqual([late.id]));
  });
});
