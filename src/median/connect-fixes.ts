import { INVALID_URL_FIXES } from './sync-fixes.js';

/**
 * The docs' "Fix" column for each connect error (tool-errors.txt), as hints
 * median-dev shows next to Median's own message.
 */
const CONNECT_FIXES: Readonly<Record<string, string>> = Object.freeze({
  unauthorized:
    'Send the same key the server holds. The route also answers this when MEDIAN_KEY is not set on the server: put MEDIAN_KEY in the env file and restart the dev server.',
  invalid_median_key: 'Use the Median key (median_key_…), not the browser key: copy the whole key again from Settings → API.',
  median_endpoint_unknown: 'Set MEDIAN_TOOLS_URL to a full URL; median-dev writes it for you unless you passed --no-env-file.',
  median_unreachable: 'Allow outbound HTTPS from your dev server to the Median API (MEDIAN_API_URL), then median-dev reconnects.',
  invalid_api_key: 'The key was revoked. Create a key on Settings → API, put it in MEDIAN_KEY and restart.',
  legacy_api_key: 'Create a Median key on Settings → API and set it as MEDIAN_KEY.',
  missing_median_key: 'Create a Median key on Settings → API first, then set it as MEDIAN_KEY.',
  invalid_url: 'Use an https:// URL (the tunnel gives one), or pass --public-url with an https origin.',
  duplicate_endpoint: 'Seen from Change endpoint: another endpoint already has this URL. Remove the other endpoint first (`median-dev endpoints` shows whose it is).',
  too_many_tool_endpoints: 'Remove an endpoint you no longer use: `median-dev endpoints prune` lists this project’s stale tunnel endpoints.',
  rate_limited: 'Wait a minute; median-dev retries by itself.',
  median_refused_connection: 'Check MEDIAN_KEY and the status Median gave, then restart.',
});

/**
 * The fix for a connect error. `invalid_url` has four messages with four
 * fixes: pass Median's `message` to get the one that fits.
 */
export function connectFix(code: string, message?: string): string | undefined {
  if (code === 'invalid_url' && message !== undefined) {
    const specific = INVALID_URL_FIXES[message.trim()];
    if (specific) return specific;
  }
  return CONNECT_FIXES[code];
}
