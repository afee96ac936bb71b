import { withRepeats, type CallRecord } from '../median/call-record.js';
import type { IndexedCall } from './call-index-file.js';
import { IndexMismatchError, type IndexHit, type IndexedLookup } from './call-index-reader.js';
import { createCallPicker } from './call-picker.js';

/**
 * The call store's lookups by id through the call index (call-index-reader.ts):
 * the same answers as its full scans (call-store.ts), which they fall back to
 * when an index does not match its segment (`IndexMismatchError`).
 */
export type Needle = (text: string) => Buffer;

type CallHit = IndexHit & { entry: IndexedCall };
const isCallHit = (hit: IndexHit): hit is CallHit => hit.entry.kind === 'call';

/** The record of a hit with its newest repeat line applied (found among `hits`, else looked up by its id). */
async function recordOf(lookup: IndexedLookup, needle: Needle, hit: CallHit, hits?: IndexHit[]): Promise<CallRecord> {
  const parsed = await lookup.load(hit);
  if (parsed.kind !== 'call') throw new IndexMismatchError(`The call index names a repeat line as a record in ${hit.view.path}.`);
  const { id } = hit.entry;
  const repeatHit = (hits ?? (await lookup.find(needle(id), undefined, 'whole'))).find((h) => h.entry.kind === 'repeat' && h.entry.repeatOf === id);
  if (!repeatHit) return parsed.record;
  const repeat = await lookup.load(repeatHit);
  if (repeat.kind !== 'repeat') throw new IndexMismatchError(`The call index names a record as a repeat line in ${repeatHit.view.path}.`);
  return withRepeats(parsed.record, repeat.repeat);
}

export type Found = { record: CallRecord } | { candidates: CallRecord[]; total: number };

/**
 * `findByToolCallId` through the index; `candidates` holds at most
 * `maxCandidates` of a prefix's matches. `withReplays`: the ids of the calls
 * `wanted` names exactly, and of their replays, are looked for in the same
 * read (see IndexedLookup.find), for `replaysIndexed` and the repeat lines
 * after it.
 *
 * A record id or a whole toolCallId is looked for as a whole id first
 * (segments whose ids filter rules it out are not read): when that finds a
 * record whose id or toolCallId is `wanted`, it is the answer the search of
 * its text would give, since only records naming it exactly decide then
 * (see call-picker.ts). A prefix, or an id not found, is searched as text.
 */
export async function findIndexed(lookup: IndexedLookup, needle: Needle, wanted: string, maxCandidates: number, withReplays = false): Promise<Found> {
  // Each one's id: the calls `wanted` names exactly, and the replays of a call followed or named by its record id
  // (for their own repeat lines; the search for a record id finds its replays, and one for its toolCallId the id).
  const follow = (hit: IndexHit, isFollowed: boolean): Buffer | undefined => {
    if (!isCallHit(hit)) return undefined;
    const { id, toolCallId, replayOf } = hit.entry;
    const isNamed = toolCallId === wanted || id === wanted;
    const isReplayFollowed = replayOf !== null && (isFollowed || replayOf === wanted);
    return isNamed || isReplayFollowed ? needle(id) : undefined;
  };
  const pick = (hits: readonly IndexHit[]) => {
    const picker = createCallPicker<CallHit & CallHit['entry']>(wanted);
    for (const hit of hits) {
      if (isCallHit(hit) && picker.offer({ ...hit, ...hit.entry })) break;
    }
    return picker.result();
  };
  let hits = await lookup.find(needle(wanted), withReplays ? follow : undefined, 'whole');
  let picked = pick(hits);
  if (!('only' in picked && (picked.only.id === wanted || picked.only.toolCallId === wanted))) {
    hits = await lookup.find(needle(wanted), withReplays ? follow : undefined, 'text');
    picked = pick(hits);
  }
  if ('only' in picked) return { record: await recordOf(lookup, needle, picked.only, picked.only.id === wanted ? hits : undefined) };
  const candidates: CallRecord[] = [];
  for (const hit of picked.distinct.slice(0, maxCandidates)) candidates.push(await recordOf(lookup, needle, hit));
  return { candidates, total: picked.distinct.length };
}

export async function getIndexed(lookup: IndexedLookup, needle: Needle, recordId: string): Promise<CallRecord | undefined> {
  const hits = await lookup.find(needle(recordId), undefined, 'whole');
  const hit = hits.find((h): h is CallHit => isCallHit(h) && h.entry.id === recordId);
  return hit ? recordOf(lookup, needle, hit, hits) : undefined;
}

/** The replays of a record, oldest first. */
export async function replaysIndexed(lookup: IndexedLookup, needle: Needle, recordId: string): Promise<CallRecord[]> {
  const hits = await lookup.find(needle(recordId), undefined, 'whole');
  const replays: CallRecord[] = [];
  for (const hit of hits) {
    if (isCallHit(hit) && hit.entry.replayOf === recordId) replays.push(await recordOf(lookup, needle, hit));
  }
  return replays.reverse();
}
