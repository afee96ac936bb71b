import type { CallRecord } from '../median/call-record.js';

/** Headers worth sending again; the rest (host, length, forwarding…) curl or the proxy sets. */
const KEPT_HEADERS = new Set(['content-type', 'accept', 'median-signature']);

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The call as a curl command aimed at `baseUrl` (the local proxy). The
 * signature is the recorded one, so it is only valid for five minutes after
 * the call; a Bearer header is written as `$MEDIAN_KEY`, never the key.
 */
export function formatCurl(record: CallRecord, baseUrl: string | null): string {
  const origin = (baseUrl ?? 'http://127.0.0.1:4141').replace(/\/+$/, '');
  const parts = [`curl -X ${record.request.method} ${shellQuote(origin + record.request.path)}`];
  for (const [name, value] of Object.entries(record.request.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      parts.push(`-H "authorization: Bearer $MEDIAN_KEY"`);
      continue;
    }
    if (!KEPT_HEADERS.has(lower)) continue;
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`-H ${shellQuote(`${lower}: ${one}`)}`);
  }
  if (record.request.body !== '' && record.request.method !== 'GET' && record.request.method !== 'HEAD') {
    parts.push(`--data-raw ${shellQuote(record.request.body)}`);
  }
  return parts.join(' \\\n  ');
}
