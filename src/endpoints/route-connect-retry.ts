import { connectFix } from '../median/connect-fixes.js';
import { MedianDevError, receivedErrorCode } from '../shared/errors.js';
import type { createApiRetry } from './api-retry.js';

/** What opening the route with the Bearer key answered (SPEC §1.2 connect). */
export type RouteConnectOutcome =
  | { kind: 'answer'; status: number; body: unknown; retryAfterSeconds?: number | undefined }
  | { kind: 'unreachable'; reason: string };

/** A connect answer from the route that is worth opening the route again for: Median was busy or out of reach. */
function isRetryableConnect(code: string, status: number): boolean {
  return code === 'rate_limited' || code === 'median_unreachable' || (code === 'median_refused_connection' && status >= 500);
}

/**
 * Opens the route; while it answers that Median was rate limiting or out of
 * reach, waits and opens it again (bounded, like an API call: `withRetry`).
 */
export function openRouteRetrying(openRoute: () => Promise<RouteConnectOutcome>, withRetry: ReturnType<typeof createApiRetry>): Promise<RouteConnectOutcome> {
  return withRetry('connecting the endpoint', async () => {
    const outcome = await openRoute();
    if (outcome.kind !== 'answer') return outcome;
    const body = outcome.body as { error?: { code?: unknown; message?: unknown } } | null;
    const code = body?.error?.code;
    if (typeof code !== 'string' || !isRetryableConnect(code, outcome.status)) return outcome;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `The route answered ${outcome.status}.`;
    throw new MedianDevError(receivedErrorCode(code), message, {
      // The docs' fix, except for rate_limited, whose fix ("median-dev retries by itself") is this very retry.
      ...(code === 'rate_limited' ? {} : { hint: connectFix(code, message) }),
      details: {
        status: outcome.status,
        ...(outcome.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: outcome.retryAfterSeconds }),
      },
    });
  });
}

/** Where the route is now, for connect messages (the dev server's origin may have been found after the start). */
export function routeUrlOf(options: { routeUrl: string | (() => string) }): string {
  return typeof options.routeUrl === 'string' ? options.routeUrl : options.routeUrl();
}
