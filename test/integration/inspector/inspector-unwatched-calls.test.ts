import { describe, expect, it } from 'vitest';
import { callEventOf } from '../../../src/events/index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { makeRecord } from '../../helpers/record-fixtures.js';
import { openSession, rawRequest, useInspectorServer } from '../../helpers/use-inspector-server.js';

/** A record whose every read is counted: what the inspector's listener walks of it. */
function countingRecord(): { record: CallRecord; reads: () => number } {
  let reads = 0;
  const record = new Proxy(makeRecord(), {
    get(target, property, receiver) {
      reads += 1;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { record, reads: () => reads };
}

describe('the inspector and the calls nobody inspects', () => {
  it('builds no row for a call until a browser asks for the list; from then on each call is a row', async () => {
    const world = await useInspectorServer([], {}, { cold: true });
    const unwatched = countingRecord();
    world.records.push(unwatched.record);
    const event = callEventOf(unwatched.record, unwatched.record.receivedAt);
    const before = unwatched.reads();

    world.emit(event);

    // At 250 calls a second a daemon nobody inspects was building a row a call, to throw it away.
    expect(unwatched.reads() - before).toBe(0);

    const session = await openSession(world.server);
    const list = async () => JSON.parse((await rawRequest(world.server.port, { path: '/api/calls?offset=0&limit=10', headers: session })).body) as { rows: Array<{ id: string }> };
    expect((await list()).rows.map((row) => row.id)).toEqual([unwatched.record.id]);

    // The list is held now: a new call becomes a row at once (not stored in this world's array, so only the event can add it).
    const next = makeRecord({ tool: 'refund_order' });
    world.emit(callEventOf(next, next.receivedAt));
    expect((await list()).rows.map((row) => row.id)).toEqual([next.id, unwatched.record.id]);
  });
});
