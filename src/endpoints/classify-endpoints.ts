import type { Endpoint } from '../median/api-client.js';
import { parseClash } from './clash-message.js';
import { isTunnelUrl, ownerOf, type EndpointOwner } from './endpoint-owner.js';

export interface ProjectMemory {
  endpointId?: string | undefined;
  toolsUrl?: string | undefined;
  /** Every tools URL this data dir has used. */
  tunnelUrls?: string[] | undefined;
  /** Given `--allow-production-org` once: connect even though the organisation holds production endpoints. */
  allowProductionOrg?: boolean | undefined;
  /** The tunnel server's domains (the last start's): endpoints under them are dev tunnels, never production. No proof of ownership. */
  tunnelDomains?: readonly string[] | undefined;
}

export interface ClassifiedEndpoint extends Endpoint {
  /** Whose it is: this project's, another dev tunnel (a teammate's), or production / a preview. */
  owner: EndpointOwner;
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

/** This project's own URLs and endpoint id, as `ownerOf` takes them. */
export function ourEndpoints(memory: ProjectMemory): { endpointId: string | undefined; urls: ReadonlySet<string> } {
  const urls = new Set(memory.tunnelUrls ?? []);
  if (memory.toolsUrl) urls.add(memory.toolsUrl);
  return { endpointId: memory.endpointId, urls };
}

/** Marks each endpoint for `median-dev endpoints`, `prune`, `doctor` and the production guard. */
export function classifyEndpoints(
  endpoints: readonly Endpoint[],
  memory: ProjectMemory,
  options: { extraTunnelDomains?: readonly string[] } = {},
): ClassifiedEndpoint[] {
  const ours = ourEndpoints(memory);
  const domains = [...(options.extraTunnelDomains ?? []), ...(memory.tunnelDomains ?? [])];
  const current = endpoints.find((e) => e.id === memory.endpointId) ?? endpoints.find((e) => e.url === memory.toolsUrl);
  const clashUrls = new Set<string>();
  for (const e of current ? [current] : []) {
    const clash = parseClash(e.error);
    if (clash) clashUrls.add(clash.otherUrl);
  }
  return endpoints.map((e) => {
    const isCurrent = current !== undefined && e.id === current.id;
    const owner = isCurrent ? 'this-project' : ownerOf(e, ours, domains);
    const isThisProject = owner === 'this-project';
    return {
      ...e,
      owner,
      isCurrent,
      isThisProject,
      isStale: isThisProject && !isCurrent,
      isTunnelUrl: isTunnelUrl(e.url, domains),
      clashesWithCurrent: clashUrls.has(e.url),
    };
  });
}
