import { checkMedianKey, KEY_MESSAGES, resolveToolSecret } from '../median/key.js';
import { UserError, isMedianDevError } from '../shared/errors.js';
import { missingKeyHint } from '../config/env-cascade.js';
import type { Config } from '../config/resolve-config.js';

/** Where the key came from, for a hint. */
export function keySourceOf(config: Pick<Config, 'keySource' | 'keyFile' | 'envFile'>): string {
  return config.keySource === 'env' ? 'the environment' : (config.keyFile ?? config.envFile ?? 'the env file');
}

/**
 * A MEDIAN_KEY that is set must have the right shape, with the docs' two
 * messages (tool-errors.txt, `invalid_median_key`). A malformed key is never
 * sent anywhere, nor printed.
 */
export function assertKeyShape(config: Pick<Config, 'medianKey' | 'keySource' | 'keyFile' | 'envFile'>): void {
  if (!config.medianKey) return;
  const problem = checkMedianKey(config.medianKey);
  if (!problem) return;
  throw new UserError('invalid_median_key', problem === 'wrong_prefix' ? KEY_MESSAGES.wrongPrefix : KEY_MESSAGES.malformed, {
    hint: `Fix MEDIAN_KEY in ${keySourceOf(config)}: the Median key (median_key_…) from Settings → API, copied whole.`,
  });
}

/** The tool signing secret, or a UserError saying where to put the key. */
export function requireSecret(config: Config, what: string): Uint8Array {
  if (!config.medianKey && !config.toolSecret) {
    throw new UserError('missing_key', `${what} has to be signed, and no MEDIAN_KEY is set.`, {
      hint: missingKeyHint(config.envFile),
    });
  }
  if (!config.toolSecret) assertKeyShape(config);
  try {
    return resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
  } catch (error) {
    if (isMedianDevError(error)) throw new UserError(error.code, error.message, { ...(error.hint ? { hint: error.hint } : {}), cause: error });
    throw error;
  }
}
