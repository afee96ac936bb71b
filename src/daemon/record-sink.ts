import type { CallRecord } from '../median/index.js';
import type { Recorder } from '../recorder/index.js';
import type { NewDaemonEvent } from '../events/index.js';


/**
 * Where the proxy's records go: stored (masked) first, then announced as a
 * `call` event, so a record is durable once its event is out. A failing
 * store is reported once (and its recovery once); the call is announced
 * anyway, from memory (masked all the same), and traffic keeps flowing.
 */
export function createRecordSink(
  recorder: Recorder,
  emit: (event: NewDaemonEvent) => void,
  /** Masks a record the recorder could not store (it masks the ones it stores). */
  maskUnstored: (record: CallRecord) => CallRecord,
): (record: CallRecord) => Promise<void> {
  let isFailing = false;
  return async (record) => {
    let stored = record;
    try {
      stored = await recorder.append(record);
      if (isFailing) {
        isFailing = false;
        emit({ event: 'recording', state: 'ok' });
      }
    } catch (error) {
      stored = maskUnstored(record);
      if (!isFailing) {
        isFailing = true;
        emit({ event: 'recording', state: 'failing', message: error instanceof Error ? error.message : String(error) });
      }
    }
    emit({
      event: 'call',
      id: stored.id,
      toolCallId: stored.toolCallId,
      tool: stored.tool,
      kind: stored.kind,
      status: stored.response?.status ?? null,
      signature: stored.signature,
      verdict: stored.verdict.kind,
      durationMs: stored.durationMs,
      replayOf: stored.replayOf,
      record: stored,
    });
  };
}
