import { createSecretMasker } from '../recorder/index.js';

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
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return masker.mask(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(value)) copy[name] = walk(inner);
      return copy;
    }
    return value;
  };
  return {
    text: (text) => masker.mask(text),
    value: <T>(value: T) => walk(value) as T,
  };
}
