import { createSecretMasker } from '../shared/secret-masker.js';
import { mapStrings } from '../shared/map-strings.js';

/**
 * Masks secrets in what a command prints that median-dev did not record
 * itself (a route's answer to `call` or `replay`, error messages, log
 * lines): the given secrets in any spelling, and anything shaped like a
 * Median key (SPEC §2.2: secrets never reach the screen). Records from the
 * store are masked already.
 */
export interface OutputMasker {
  text(text: string): string;
  /** A copy of a JSON-like value with every string masked. */
  value<T>(value: T): T;
}

export function createOutputMasker(secrets: ReadonlyArray<string | undefined>): OutputMasker {
  const masker = createSecretMasker(secrets.filter((s): s is string => typeof s === 'string' && s !== ''));
  return {
    text: (text) => masker.mask(text),
    value: <T>(value: T) => mapStrings(value, masker.mask),
  };
}
