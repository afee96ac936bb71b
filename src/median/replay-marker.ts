import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MARKER_PATTERN = /^(rec_[0-9a-f]{24})\.([0-9a-f]{64})$/;

/** A fresh per-daemon replay key (64 hex characters): only who holds it can mark a request as a replay. */
export function newReplayKey(): string {
  return randomBytes(32).toString('hex');
}

/** The value of `x-median-dev-replay-of` for a replay of `recordId`: `<id>.<HMAC-SHA256(key, id)>`. */
export function replayMarker(key: string, recordId: string): string {
  return `${recordId}.${markerMac(key, recordId)}`;
}

/** The record id a replay marker names, when `key` made it; null for anything else (a forged or stale marker). */
export function recordIdOfReplayMarker(value: unknown, key: string): string | null {
  if (typeof value !== 'string') return null;
  const match = MARKER_PATTERN.exec(value);
  if (!match) return null;
  const expected = Buffer.from(markerMac(key, match[1]!), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')) ? match[1]! : null;
}

function markerMac(key: string, recordId: string): string {
  return createHmac('sha256', key).update(`median-dev/replay-of/v1.${recordId}`).digest('hex');
}
