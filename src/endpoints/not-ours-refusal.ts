import type { Endpoint } from '../median/api-client.js';
import type { ErrorCode } from '../shared/errors.js';
import { foreignOwnerOf } from './endpoint-owner.js';

/**
 * What median-dev says about an endpoint at its own URL that it may not take
 * over (adopt, change or sync): one on a production-looking origin, or one
 * this data dir never connected (a teammate's, or a deleted data dir's).
 */
export function notOursRefusal(endpoint: Endpoint, tunnelDomains: readonly string[]): { code: ErrorCode; message: string; hint: string } {
  if (foreignOwnerOf(endpoint.url, tunnelDomains) === 'production') {
    return {
      code: 'production_org',
      message: `Median already has an endpoint at ${endpoint.url} (${endpoint.id}), on a production-looking origin that this project never connected: median-dev did not adopt, change or sync it.`,
      hint: 'Check --public-url and --tunnel-host: this laptop needs a public URL of its own, under the tunnel server’s domain.',
    };
  }
  return {
    code: 'endpoint_not_ours',
    message: `Median already has an endpoint at ${endpoint.url} (${endpoint.id}) that this project's data dir never connected (likely a teammate's, or this project's from a data dir since deleted): median-dev did not take it over.`,
    hint: 'If it is yours, remove it (`median-dev endpoints prune`, or in Median) and median-dev connects its own; else pick another --subdomain.',
  };
}
