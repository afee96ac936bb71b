import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createEventMasker } from '../../../src/daemon/event-masker.js';
import { createRecordSink } from '../../../src/daemon/record-sink.js';
import { openRecorder } from '../../../src/recorder/index.js';
import type { DaemonEvent, NewDaemonEvent } from '../../../src/events/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { KEY, MASKED_KEY, makeRecord } from '../../helpers/make-record.js';

const at = '2026-01-01T00:00:00.000Z';
const OTHER_KEY = `median_key_${'Rotated9'.repeat(4)}wxyz`;

describe('what the daemon reports holds no key', () => {
  it.each<[string, DaemonEvent]>([
    ['a dev server line', { event: 'output', at, stream: 'stdout', line: `config: MEDIAN_KEY=${KEY}` }],
    ['a JSON dev server line', { event: 'output', at, stream: 'stderr', line: JSON.stringify({ env: { MEDIAN_KEY: KEY } }) }],
    ['an error message and hint', { event: 'error', at, code: 'internal_error', message: `failed with ${KEY}`, hint: `check ${encodeURIComponent(KEY)}` }],
    ['a log line', { event: 'log', at, level: 'warn', message: `key ${KEY} changed` }],
    ['a child command line', { event: 'child', at, state: 'running', pid: 1, command: `env MEDIAN_KEY=${KEY} node server.js` }],
    ['a recording failure', { event: 'recording', at, state: 'failing', message: `cannot write ${KEY}` }],
  ])('%s', (_name, event) => {
    const masked = createEventMasker([KEY], { redactVisitor: false }).mask(event);
    expect(JSON.stringify(masked)).not.toContain(KEY);
    expect(JSON.stringify(masked)).toContain(MASKED_KEY);
    expect(masked.event).toBe(event.event);
  });

  it('masks a key added by a rotation, and still the old one', () => {
    const masker = createEventMasker([KEY], { redactVisitor: false });
    masker.addSecret(OTHER_KEY);
    const masked = masker.mask({ event: 'output', at, stream: 'stdout', line: `${KEY} ${OTHER_KEY}` });
    expect(masked).toMatchObject({ line: `${MASKED_KEY} median_key_****wxyz` });
  });

  it('announces a call it could not store with its record masked all the same', async () => {
    const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-sink-')), (d) => rm(d, { recursive: true, force: true }));
    // A file where the data dir should be: every append fails.
    const dataDir = join(dir, 'data');
    await writeFile(dataDir, 'not a folder');
    const recorder = useTeardown(await openRecorder({ dataDir, secrets: [KEY] }), (r) => r.close());
    const events: NewDaemonEvent[] = [];
    const masker = createEventMasker([KEY], { redactVisitor: false });
    const sink = createRecordSink(recorder, (event) => events.push(event), (record) => masker.maskRecord(record));

    const record = makeRecord({ request: { method: 'GET', path: '/api/median', headers: { authorization: `Bearer ${KEY}` }, body: KEY } });
    await sink(record);

    // The call event comes on the next turn (after the answer's end was let go): test/integration/daemon/record-sink.test.ts.
    await vi.waitFor(() => expect(events.map((e) => e.event)).toEqual(['recording', 'call']));
    const call = events[1] as Extract<DaemonEvent, { event: 'call' }>;
    expect(call.record?.id).toBe(record.id);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});
