import { createHash, timingSafeEqual } from 'node:crypto';
import { CONNECT_MESSAGES } from '../median/index.js';
import { ApiError } from './api-error.js';

/**
 * OUR SHAPES for the docs' key errors (tool-errors.txt names the codes and
 * messages, not what triggers them). Checked on every /v1 call, in this order:
 *
 * 1. No `Authorization` header, or `Bearer` with nothing after it: the caller
 *    has no Median key yet → 400 `missing_median_key`.
 * 2. A `Bearer` token that starts with one of `legacyPrefixes` (the old
 *    secret/publishable API keys) → 400 `legacy_api_key`.
 * 3. Anything else that is not `Bearer <the emulator's key>` (another scheme,
 *    another key) → 401 `invalid_api_key`.
 */
export const API_KEY_RULES = Object.freeze({
  legacyPrefixes: Object.freeze(['sk_', 'pk_']),
});

/** Throws the docs' ApiError when the Authorization header is not the accepted key. */
export function assertApiKey(header: string | undefined, acceptedKey: string): void {
  const value = (header ?? '').trim();
  const match = /^Bearer(?:\s+(.*))?$/i.exec(value);
  if (value === '' || (match && (match[1] ?? '').trim() === '')) {
    throw new ApiError(400, 'missing_median_key', CONNECT_MESSAGES.missingMedianKey);
  }
  const token = match ? (match[1] ?? '').trim() : undefined;
  if (token !== undefined && API_KEY_RULES.legacyPrefixes.some((prefix) => token.startsWith(prefix))) {
    throw new ApiError(400, 'legacy_api_key', CONNECT_MESSAGES.legacyApiKey);
  }
  if (token === undefined || !sameSecret(token, acceptedKey)) {
    throw new ApiError(401, 'invalid_api_key', CONNECT_MESSAGES.invalidApiKey);
  }
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
