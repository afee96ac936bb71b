import { CONNECT_MESSAGES } from '../median/index.js';
import { ApiError } from './api-error.js';
import type { KeyRing } from './key-ring.js';

/**
 * OUR SHAPES for the docs' key errors (tool-errors.txt names the codes and
 * messages, not what triggers them). Checked on every /v1 call, in this order:
 *
 * 1. No `Authorization` header, or `Bearer` with nothing after it: the caller
 *    has no Median key yet → 400 `missing_median_key`.
 * 2. A `Bearer` token that starts with one of `legacyPrefixes` (the old
 *    secret/publishable API keys) → 400 `legacy_api_key`.
 * 3. Anything else that is not `Bearer <one of the org's keys>` (another
 *    scheme, another key, a revoked key) → 401 `invalid_api_key`.
 */
export const API_KEY_RULES = Object.freeze({
  legacyPrefixes: Object.freeze(['sk_', 'pk_']),
});

/**
 * The org's key the Authorization header carries, or throws the docs'
 * ApiError. Every key the org holds and has not revoked is accepted.
 */
export function assertApiKey(header: string | undefined, keys: Pick<KeyRing, 'match'>): string {
  const value = (header ?? '').trim();
  const match = /^Bearer(?:\s+(.*))?$/i.exec(value);
  if (value === '' || (match && (match[1] ?? '').trim() === '')) {
    throw new ApiError(400, 'missing_median_key', CONNECT_MESSAGES.missingMedianKey);
  }
  const token = match ? (match[1] ?? '').trim() : undefined;
  if (token !== undefined && API_KEY_RULES.legacyPrefixes.some((prefix) => token.startsWith(prefix))) {
    throw new ApiError(400, 'legacy_api_key', CONNECT_MESSAGES.legacyApiKey);
  }
  const key = token === undefined ? undefined : keys.match(token);
  if (key === undefined) throw new ApiError(401, 'invalid_api_key', CONNECT_MESSAGES.invalidApiKey);
  return key;
}
