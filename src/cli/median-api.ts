import { missingKeyHint } from '../config/env-cascade.js';
import type { Config } from '../config/resolve-config.js';
import { createMedianApiClient, type MedianApiClient } from '../median/api-client.js';
import type { Clock } from '../shared/clock.js';
import { UserError, isMedianDevError } from '../shared/errors.js';
import { connectFix } from '../median/connect-fixes.js';
import { assertKeyShape } from './require-secret.js';

/** The Median API client for a command (its waits on `clock`, the CLI's io clock; real time when left out), or a UserError saying where the key goes. */
export function requireApiClient(config: Config, clock?: Clock): MedianApiClient {
  if (!config.medianKey) {
    throw new UserError('missing_key', 'No MEDIAN_KEY is set, so median-dev cannot ask Median about endpoints.', {
      hint: missingKeyHint(config.envFile),
    });
  }
  assertKeyShape(config);
  return createMedianApiClient({ baseUrl: config.medianApi, key: config.medianKey, ...(clock ? { clock } : {}) });
}

/** Median's own errors are things the user can fix: shown with the docs' fix. */
export async function callMedian<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isMedianDevError(error) && !(error instanceof UserError)) {
      throw new UserError(error.code, `${what}: ${error.message}`, {
        hint: error.hint ?? connectFix(error.code) ?? 'Check MEDIAN_KEY and MEDIAN_API_URL (--median-api).',
        cause: error,
        ...(error.details ? { details: { ...error.details } } : {}),
      });
    }
    throw error;
  }
}
