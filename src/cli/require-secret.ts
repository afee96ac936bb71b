import { resolveToolSecret } from '../median/index.js';
import { UserError, isMedianDevError } from '../shared/errors.js';
import type { Config } from '../config/index.js';

/** The tool signing secret, or a UserError saying where to put the key. */
export function requireSecret(config: Config, what: string): Uint8Array {
  if (!config.medianKey && !config.toolSecret) {
    throw new UserError('missing_key', `${what} has to be signed, and no MEDIAN_KEY is set.`, {
      hint: `Set MEDIAN_KEY in the environment or in ${config.envFile ?? 'an env file (.env.local)'}.`,
    });
  }
  try {
    return resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
  } catch (error) {
    if (isMedianDevError(error)) throw new UserError(error.code, error.message, { ...(error.hint ? { hint: error.hint } : {}), cause: error });
    throw error;
  }
}
