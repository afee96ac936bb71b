import type { CallRecord } from '../median/index.js';
import { createSecretMasker } from '../shared/secret-masker.js';
import { mapStrings } from '../shared/map-strings.js';
import type { DaemonEvent } from '../events/index.js';

/**
 * Masks secrets in what the daemon reports (SPEC §2.2: secrets never reach
 * the screen). Events go to the terminal, the TUI and the control channel,
 * and some carry text median-dev does not write: the dev server's output
 * lines (a dev server may print its config, MEDIAN_KEY included), error and
 * log messages. Every string in them is masked like a recorded call: the
 * given secrets in any spelling, and anything shaped like a Median key.
 */
export interface EventMasker {
  /** The event with every string masked; `call` events pass as they are (their record comes masked). */
  mask<E extends { event: DaemonEvent['event'] }>(event: E): E;
  /** A record the recorder could not store (so did not mask), masked for its `call` event. */
  maskRecord(record: CallRecord): CallRecord;
  /** One piece of text masked (the dev server's output, before a long line is cut). */
  maskText(text: string): string;
  /** A key rotation: the new key is masked from now on, the old one still is. */
  addSecret(secret: string): void;
}

export function createEventMasker(secrets: ReadonlyArray<string | undefined>, options: { redactVisitor: boolean }): EventMasker {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s !== '');
  let masker = createSecretMasker(known, { redactVisitor: options.redactVisitor });
  return {
    mask(event) {
      if (event.event === 'call') return event;
      return mapStrings(event, masker.mask) as typeof event;
    },
    maskRecord: (record) => masker.maskRecord(record),
    maskText: (text) => masker.mask(text),
    addSecret(secret) {
      if (known.includes(secret)) return;
      known.push(secret);
      masker = createSecretMasker(known, { redactVisitor: options.redactVisitor });
    },
  };
}
