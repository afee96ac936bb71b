import { isLocalhostUrl, isPrivateAddressUrl } from '../median/sync-rules.js';
import type { EndpointOwner } from '../shared/endpoint-owner.js';

export { OWNER_LABELS, type EndpointOwner } from '../shared/endpoint-owner.js';

/** Hostnames of tunnel services whose URLs change: endpoints there belong to someone's laptop. */
export const TUNNEL_DOMAINS = Object.freeze([
  'loca.lt',
  'localtunnel.me',
  'ngrok.io',
  'ngrok-free.app',
  'ngrok-free.dev',
  'ngrok.app',
  'ngrok.dev',
  'trycloudflare.com',
  'lhr.life',
  'localhost.run',
  'serveo.net',
  'serveousercontent.com',
  'pinggy.link',
  'pinggy.online',
  'tunnelmole.net',
  'devtunnels.ms',
  'bore.pub',
  'lt.median.test',
]);

export function isTunnelUrl(url: string, extraDomains: readonly string[] = []): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return [...TUNNEL_DOMAINS, ...extraDomains].some((d) => host === d || host.endsWith(`.${d}`));
}

/**
 * The class of an endpoint URL that is not this project's. A local or private
 * address cannot be production (the cloud refuses to sync it), so it is
 * counted with the dev tunnels.
 */
export function foreignOwnerOf(url: string, extraTunnelDomains: readonly string[] = []): Exclude<EndpointOwner, 'this-project'> {
  if (isTunnelUrl(url, extraTunnelDomains) || isLocalhostUrl(url) || isPrivateAddressUrl(url)) return 'dev-tunnel';
  return 'production';
}

/** The class of an endpoint, given this project's own URLs and endpoint id. */
export function ownerOf(
  endpoint: { id?: string; url: string },
  ours: { endpointId?: string | undefined; urls: ReadonlySet<string> },
  extraTunnelDomains: readonly string[] = [],
): EndpointOwner {
  if (ours.urls.has(endpoint.url) || (endpoint.id !== undefined && endpoint.id === ours.endpointId)) return 'this-project';
  return foreignOwnerOf(endpoint.url, extraTunnelDomains);
}
