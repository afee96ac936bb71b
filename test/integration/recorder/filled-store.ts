import type { CallRecord } from '../../../src/median/index.js';
import type { Recorder } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';

export interface FilledStore {
  records: CallRecord[];
  /** `records[originalAt]` as appended. */
  original: CallRecord;
  /** The original with its repeat line applied (what lookups return for it). */
  repeated: CallRecord;
  /** Two replays of it: one keeping its toolCallId, one under `call_new_id_replay`. */
  replays: CallRecord[];
}

/** `count` records (n = 1…count), then two replays of `records[originalAt]` and a repeat line of it. */
export async function fillWithReplays(recorder: Recorder, options: { count: number; originalAt: number; repeats: number }): Promise<FilledStore> {
  const records: CallRecord[] = [];
  for (let n = 1; n <= options.count; n += 1) records.push(await recorder.append(makeRecord({ n })));
  const original = records[options.originalAt]!;
  const replays = [
    await recorder.append(makeRecord({ n: options.count + 1, toolCallId: original.toolCallId, replayOf: original.id })),
    await recorder.append(makeRecord({ n: options.count + 2, toolCallId: 'call_new_id_replay', replayOf: original.id })),
  ];
  const repeated = await recorder.appendRepeat(original, { repeats: options.repeats, lastAt: '2026-01-01T00:00:09.000Z' });
  return { records, original, repeated, replays };
}
