import type { Endpoint } from '../median/api-client.js';
import type { ProjectMemory } from './classify-endpoints.js';
import { foreignOwnerOf } from './endpoint-owner.js';

/**
 * Provably this project's: its id is the endpoint median-dev connected (or
 * changed) for this data dir, or its URL is in the data dir's history of
 * tools URLs it connected. The URL just written as MEDIAN_TOOLS_URL is no
 * proof: a tunnel server or `--public-url` chose it, not Median.
 */
export function isProvablyOurs(endpoint: Pick<Endpoint, 'id' | 'url'>, memory: ProjectMemory): boolean {
  return (memory.endpointId !== undefined && endpoint.id === memory.endpointId) || (memory.tunnelUrls ?? []).includes(endpoint.url);
}

/**
 * Whether median-dev may adopt, change or remove `endpoint` by itself:
 * provably this project's AND not classed production now (an endpoint on a
 * production-looking origin is never moved or removed automatically, even
 * if a lying tunnel server once got its URL into the history).
 * `tunnelDomains`: the configured tunnel server's domains, which are dev tunnels.
 */
export function mayTouchEndpoint(endpoint: Pick<Endpoint, 'id' | 'url'>, memory: ProjectMemory, tunnelDomains: readonly string[] = []): boolean {
  return isProvablyOurs(endpoint, memory) && foreignOwnerOf(endpoint.url, tunnelDomains) !== 'production';
}

/** Endpoints at the origin of `toolsUrl` that are not provably ours and are classed production: connecting there would take one over. */
export function productionAtOrigin(
  endpoints: readonly Endpoint[],
  toolsUrl: string,
  memory: ProjectMemory,
  tunnelDomains: readonly string[] = [],
): Endpoint[] {
  const origin = originOf(toolsUrl);
  if (origin === undefined) return [];
  return endpoints.filter(
    (e) => originOf(e.url) === origin && !isProvablyOurs(e, memory) && foreignOwnerOf(e.url, tunnelDomains) === 'production',
  );
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined; // no origin: nothing can share it
  }
}
