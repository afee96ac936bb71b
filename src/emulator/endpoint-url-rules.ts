import { CONNECT_MESSAGES, isLocalhostUrl, isPrivateAddressUrl } from '../median/index.js';
import { ApiError } from './api-error.js';

/**
 * The `invalid_url` rules of the docs' Connect errors, checked in this order
 * (OUR ORDER; the docs list the messages, not their precedence):
 *
 * 1. not a non-empty string                       → "Enter a valid URL."
 * 2. over `maxLength` characters                  → "Endpoint URLs have to be 512 characters or fewer."
 * 3. not parsable by WHATWG `new URL`             → "Enter a valid URL."
 * 4. not `https:`, and not `http:` on localhost    → "Use an HTTPS URL, or HTTP on localhost for testing."
 * 5. a private-range address                      → "That address points inside a network, not at the internet."
 *
 * "localhost" is `localhost`, `*.localhost`, 127.0.0.0/8 and `[::1]`
 * (isLocalhostUrl). Private ranges are LITERAL IP addresses only
 * (isPrivateAddressUrl: 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10,
 * fc00::/7, fe80::/10): the emulator never looks names up in DNS, so a
 * hostname that resolves inside a network is accepted.
 *
 * Unlike the cloud, localhost endpoints are accepted and synced (SPEC §3).
 */
export const ENDPOINT_URL_RULES = Object.freeze({
  maxLength: 512,
  dnsLookups: false,
});

/** The URL as given (trimmed), or throws the docs' `invalid_url` ApiError. */
export function checkEndpointUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid(CONNECT_MESSAGES.urlInvalid);
  const url = raw.trim();
  if (url.length > ENDPOINT_URL_RULES.maxLength) throw invalid(CONNECT_MESSAGES.urlTooLong);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(CONNECT_MESSAGES.urlInvalid);
  }
  if (parsed.hostname === '') throw invalid(CONNECT_MESSAGES.urlInvalid);
  const isHttps = parsed.protocol === 'https:';
  const isLocalHttp = parsed.protocol === 'http:' && isLocalhostUrl(url);
  if (!isHttps && !isLocalHttp) throw invalid(CONNECT_MESSAGES.urlNotHttps);
  if (isPrivateAddressUrl(url)) throw invalid(CONNECT_MESSAGES.urlPrivate);
  return url;
}

/**
 * The key two endpoint URLs are compared by (duplicates, `?url=`): WHATWG's
 * serialisation, so `HTTPS://Acme.com` and `https://acme.com/` match.
 */
export function endpointUrlKey(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim(); // Not a URL: compared as given (it matches nothing connected).
  }
}

function invalid(message: string): ApiError {
  return new ApiError(400, 'invalid_url', message);
}
