import { repeatKeyOf, withRepeats, type CallRecord } from '../median/index.js';
import type { Recorder } from '../recorder/index.js';
import { callEventOf, type DaemonEvent, type NewDaemonEvent } from '../events/index.js';


/**
 * Where the proxy's records go: stored (masked) first, then announced as a
 * `call` event, so a record is durable once its event is out. The returned
 * promise settles once the record is stored, and the proxy lets the
 * answer's end go then; the `call` events of what was stored meanwhile are
 * emitted together on the next turn (setImmediate), after those answers
 * left: the event's listeners (the `--json` line's write, the hub, the
 * control channel, the inspector) are not between a stored record and its
 * caller's answer. A failing
 * store is reported once (and its recovery once); the call is announced
 * anyway, from memory (masked all the same), and traffic keeps flowing.
 *
 * median-dev opening a dead route again and again with the same outcome is
 * one record with a repeat count (`repeats`, `lastAt`): the store gets a small
 * repeat line, and the `call` event carries the record's id again, updated.
 */
export function createRecordSink(
  recorder: Recorder,
  /** A `call` event comes whole, `at` stamped (callEventOf); the others without their `at`. */
  emit: (event: NewDaemonEvent | DaemonEvent) => void,
  /** Masks a record the recorder could not store (it masks the ones it stores). */
  maskUnstored: (record: CallRecord) => CallRecord,
): (record: CallRecord) => Promise<void> {
  let isFailing = false;
  /** The last connect record and its outcome: the next with the same outcome repeats it. */
  let last: { key: string; record: CallRecord } | undefined;
  /** Stored records whose `call` event is due on the next turn, in the order they were stored. */
  let toAnnounce: CallRecord[] = [];
  const announce = (): void => {
    const stored = toAnnounce;
    toAnnounce = [];
    for (const record of stored) emitCall(record);
  };
  const emitCallSoon = (stored: CallRecord): void => {
    if (toAnnounce.push(stored) === 1) setImmediate(announce);
  };
  return async (record) => {
    const key = repeatKeyOf(record);
    if (key !== undefined) {
      const repeated = last?.key === key ? last.record : undefined;
      const update = repeated ? { repeats: (repeated.repeats ?? 1) + 1, lastAt: record.receivedAt } : undefined;
      // Set before the write, so a repeat arriving meanwhile counts on from this one.
      last = { key, record: repeated && update ? withRepeats(repeated, update) : record };
      if (repeated && update) {
        let stored = last.record;
        try {
          stored = await recorder.appendRepeat(repeated, update);
        } catch {
          // Not stored: the count lives on in memory and in the event; the next record that stores says whether the disk is back.
        }
        emitCallSoon(stored);
        return;
      }
    }
    let stored = record;
    try {
      stored = await recorder.append(record);
      if (key !== undefined && last?.record === record) last = { key, record: stored };
      if (isFailing) {
        isFailing = false;
        emit({ event: 'recording', state: 'ok' });
      }
    } catch (error) {
      stored = maskUnstored(record);
      if (key !== undefined && last?.record === record) last = { key, record: stored };
      if (!isFailing) {
        isFailing = true;
        emit({ event: 'recording', state: 'failing', message: error instanceof Error ? error.message : String(error) });
      }
    }
    emitCallSoon(stored);
  };

  function emitCall(stored: CallRecord): void {
    // Whole, stamped here: the hub hands it on without a copy (call-event.ts).
    emit(callEventOf(stored, new Date().toISOString()));
  }
}
