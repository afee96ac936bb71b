/**
 * The path a forwarded request is sent to the dev server with, exactly as
 * http-proxy-3 (1.23, MIT) builds it in `setupOutgoing`: the target's own
 * path joined with the request's path and query as WHATWG URL parsing
 * normalises them (`/a/../b` → `/b`, `%2e%2e` resolved, `\` → `/`, an
 * absolute-form target's origin dropped, a fragment dropped, unsafe
 * characters percent-encoded), queries of both merged. The dev server sees
 * what it saw when http-proxy-3 forwarded (test/unit/proxy/upstream-path.test.ts
 * compares the two over odd request targets).
 *
 * A request target made only of characters URL parsing leaves alone (no
 * dot, percent, backslash, quote or doubled leading slash) is its own
 * normalised form, and is used as it is, without a URL parse per request.
 */

/** Paths (and queries) the URL parser returns unchanged. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-_~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-_~!$&()*+,;=:@/?]+)?$/;

/** The request target's normalised path and query (http-proxy-3's `getPath`). */
export function normalizedPath(url: string): string {
  if (url === '' || url.startsWith('?')) return url;
  if (PLAIN_PATH.test(url)) return url;
  // http-proxy-3's `toURL`: a network-path reference (`//host/x`) is read as a path on a placeholder origin.
  const parsed = new URL(url.startsWith('//') ? `http://base.invalid${url}` : url, 'http://base.invalid');
  return `${parsed.pathname}${parsed.search}`;
}

/** http-proxy-3's `urlJoin`: segments concatenated with one slash between, their queries merged with `&`. */
export function joinUrlPaths(...parts: string[]): string {
  const queries: string[] = [];
  const segments = parts.map((part) => {
    const at = part.indexOf('?');
    if (at === -1) return part;
    queries.push(part.substring(at + 1));
    return part.substring(0, at);
  });
  let joined = '';
  for (const segment of segments) {
    if (!segment) continue;
    if (joined.endsWith('/')) joined += segment.startsWith('/') ? segment.slice(1) : segment;
    else joined += segment.startsWith('/') ? segment : `/${segment}`;
  }
  const query = queries.filter(Boolean).join('&');
  return query ? `${joined}?${query}` : joined;
}

/** The target's own path, normalised once per target. */
export function targetBasePath(target: URL): string {
  return normalizedPath(`${target.pathname}${target.search}`);
}

/** Where `requestUrl` goes on a target whose base path is `base`. */
export function upstreamPath(base: string, requestUrl: string): string {
  // A target at its root adds nothing: joining '/' with a path that starts with '/' and has no second query is the path itself.
  const path = normalizedPath(requestUrl);
  if (base === '/' && path.startsWith('/')) return path;
  return joinUrlPaths(base, path);
}
