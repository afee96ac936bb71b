import type { CallRecord } from '../median/call-record.js';

/**
 * Records are written when a call finishes, so the store holds them in
 * finish order: a slow call received first is written after the quick ones
 * that came in behind it. This keeps the `limit` newest by `receivedAt`
 * while the store is read newest-written first, and says when reading can
 * stop: a record that finished before the oldest one kept was received even
 * earlier, and so is every record written before it.
 *
 * A store written faster than the write slack below (a bench writes 100,000
 * records in a few seconds) never lets reading stop, so a line is first
 * judged without parsing it (`peekTimes`): once the limit is full, a line
 * received no later than the oldest kept cannot be kept, whatever it holds.
 */
export interface ReceivedOrder {
  add(record: CallRecord): void;
  /** Every record from here on (older in the store) was received before the ones kept. */
  isPastLimit(times: LineTimes): boolean;
  /** A record's line judged by its times (`peekTimes`) before it is parsed; a function that needs no `this`. */
  judgeLine(line: Buffer): LineVerdict;
  /** The records kept, newest `receivedAt` first. */
  records(): CallRecord[];
}

/** `past`: no line older in the store is wanted (reading stops); `skip`: this one is not, left unparsed. */
export type LineVerdict = 'past' | 'skip' | undefined;

/** A record's `receivedAt` (ms) and `durationMs` (null: 0). */
export interface LineTimes {
  receivedAt: number;
  durationMs: number;
}

/** Writes of calls finishing together may land a little out of order (group commit, concurrent appends). */
const WRITE_ORDER_SLACK_MS = 5_000;

const RECEIVED_KEY = Buffer.from('"receivedAt":"', 'utf8');
const DURATION_KEY = Buffer.from('"durationMs":', 'utf8');

/** Where a key's value starts, when the key is in the line exactly once (else undefined: another object may hold it). */
function onlyValueStart(line: Buffer, key: Buffer): number | undefined {
  const at = line.indexOf(key);
  if (at === -1 || line.indexOf(key, at + 1) !== -1) return undefined;
  return at + key.length;
}

/**
 * The times of a record's line without parsing it. An unescaped `"key":`
 * in JSON text can only be an object's key (bodies and other texts are
 * strings, their quotes escaped), and a record has both keys at its top
 * level; a key found more than once, or a value that does not read:
 * undefined, and the line is parsed.
 */
export function peekTimes(line: Buffer): LineTimes | undefined {
  const receivedStart = onlyValueStart(line, RECEIVED_KEY);
  const durationStart = onlyValueStart(line, DURATION_KEY);
  if (receivedStart === undefined || durationStart === undefined) return undefined;
  const receivedEnd = line.indexOf(0x22, receivedStart);
  if (receivedEnd === -1 || receivedEnd - receivedStart > 40) return undefined;
  const receivedAt = Date.parse(line.toString('latin1', receivedStart, receivedEnd));
  let durationEnd = durationStart;
  while (durationEnd < line.length && durationEnd - durationStart <= 24 && line[durationEnd] !== 0x2c && line[durationEnd] !== 0x7d) durationEnd += 1;
  const durationText = line.toString('latin1', durationStart, durationEnd);
  const durationMs = durationText === 'null' ? 0 : Number(durationText);
  if (Number.isNaN(receivedAt) || durationText === '' || !Number.isFinite(durationMs)) return undefined;
  return { receivedAt, durationMs: Math.max(0, durationMs) };
}

function receivedMs(record: CallRecord): number {
  const at = Date.parse(record.receivedAt);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
}

/** The times of a parsed record, as `peekTimes` reads them off its line. */
export function timesOf(record: CallRecord): LineTimes {
  return { receivedAt: receivedMs(record), durationMs: Math.max(0, record.durationMs ?? 0) };
}

export function createReceivedOrder(limit: number): ReceivedOrder {
  /** Kept newest received first; at most `limit`. */
  const kept: CallRecord[] = [];
  const oldestKept = (): number => receivedMs(kept[kept.length - 1]!);
  const order: ReceivedOrder = {
    add(record) {
      const at = receivedMs(record);
      let index = kept.length;
      while (index > 0 && receivedMs(kept[index - 1]!) < at) index -= 1;
      if (index >= limit) return;
      kept.splice(index, 0, record);
      if (kept.length > limit) kept.pop();
    },
    isPastLimit(times) {
      if (kept.length < limit) return false;
      return times.receivedAt + times.durationMs + WRITE_ORDER_SLACK_MS < oldestKept();
    },
    judgeLine(line) {
      const times = peekTimes(line);
      if (!times || kept.length < limit) return undefined;
      if (order.isPastLimit(times)) return 'past';
      // `add` puts a record received at the same time as the oldest kept after it: past the limit.
      return times.receivedAt <= oldestKept() ? 'skip' : undefined;
    },
    records: () => [...kept],
  };
  return order;
}
