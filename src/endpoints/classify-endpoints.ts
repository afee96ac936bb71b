import type { Endpoint } from '../median/index.js';
import { parseClash } from './clash-message.js';

/** Hostnames of tunnel services whose URLs change: endpoints there are likely stale. */
export const TUNNEL_DOMAINS = Object.freeze([
  'loca.lt',
  'localtunnel.me',
  'ngrok.io',
  'ngrok-free.app',
  'ngrok.app',
  'trycloudflare.com',
  'lhr.life',
  'serveo.net',
  'lt.median.test',
]);

export interface ProjectMemory {
  endpointId?: string | undefined;
  toolsUrl?: string | undefined;
  /** Every tools URL this data dir has used. */
  tunnelUrls?: string[] | undefined;
}

export interface ClassifiedEndpoint extends Endpoint {
  /** The endpoint this project uses now. */
  isCurrent: boolean;
  /** Provably this project's: its id or URL is in the data dir. */
  isThisProject: boolean;
  /** This project's, at an old tunnel URL: safe to remove. */
  isStale: boolean;
  /** On a tunnel service's domain (its owner may be gone). */
  isTunnelUrl: boolean;
  /** Its tools clash with the current endpoint's (per the current endpoint's sync error). */
  clashesWithCurrent: boolean;
}

export function isTunnelUrl(url: string, extraDomains: readonly string[] = []): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return [...TUNNEL_DOMAINS, ...extraDomains].some((d) => host === d || host.endsWith(`.${d}`));
}

/** Marks each endpoint for `median-dev endpoints` and `prune`. */
export function classifyEndpoints(
  endpoints: readonly Endpoint[],
  memory: ProjectMemory,
  options: { extraTunnelDomains?: readonly string[] } = {},
): ClassifiedEndpoint[] {
  const ours = new Set(memory.tunnelUrls ?? []);
  const current = endpoints.find((e) => e.id === memory.endpointId) ?? endpoints.find((e) => e.url === memory.toolsUrl);
  const clashUrls = new Set<string>();
  for (const e of current ? [current] : []) {
    const clash = parseClash(e.error);
    if (clash) clashUrls.add(clash.otherUrl);
  }
  return endpoints.map((e) => {
    const isCurrent = current !== undefined && e.id === current.id;
    const isThisProject = isCurrent || ours.has(e.url) || e.id === memory.endpointId;
    return {
      ...e,
      isCurrent,
      isThisProject,
      isStale: isThisProject && !isCurrent,
      isTunnelUrl: isTunnelUrl(e.url, options.extraTunnelDomains),
      clashesWithCurrent: clashUrls.has(e.url),
    };
  });
}
