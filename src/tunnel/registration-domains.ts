import { isLocalhostUrl } from '../median/index.js';

/** Public localtunnel servers whose tunnels live under another domain than their own. */
const SERVER_DOMAIN_ALIASES: Readonly<Record<string, readonly string[]>> = Object.freeze({ 'localtunnel.me': ['loca.lt'] });

/**
 * Names reserved never to resolve on the internet (RFC 6761): a tunnel
 * server on loopback is a test server (ours in `src/tunnel-server`, the
 * emulator's `--tunnel-domain`), and its tunnels live under one of these.
 */
const TEST_DOMAINS: readonly string[] = Object.freeze(['test', 'localhost']);

/** Whether the tunnel server is on this machine (a test server): `localhost`, 127.0.0.0/8, ::1. */
export function isLoopbackTunnelHost(host: URL): boolean {
  return isLocalhostUrl(host.href);
}

/**
 * The domains a tunnel server may name tunnels under: its own hostname (a
 * server named by IP has none), the known alias of a public server
 * (localtunnel.me → loca.lt), and for a loopback test server the reserved
 * test names; and the domains it was configured with (`--tunnel-domain`).
 * A registration's URL must be a subdomain of one of these.
 */
export function registrationDomains(host: URL, configured: readonly string[] = []): string[] {
  const name = bareHostname(host.hostname);
  const domains: string[] = configured.map(bareHostname);
  if (!isIpLiteral(name)) domains.push(name, ...(SERVER_DOMAIN_ALIASES[name] ?? []));
  if (isLoopbackTunnelHost(host)) domains.push(...TEST_DOMAINS);
  return [...new Set(domains)];
}

/** Whether `hostname` lies strictly under `domain` (`a.loca.lt` under `loca.lt`; `loca.lt` itself does not). */
export function isSubdomainOf(hostname: string, domain: string): boolean {
  const name = bareHostname(hostname);
  return name.length > domain.length + 1 && name.endsWith(`.${domain}`);
}

/**
 * Why a registration's public URL is not one this tunnel server may hand
 * out, or undefined when it is: an `https` origin (`http` only from a
 * loopback test server) whose host is a subdomain of `registrationDomains`.
 */
export function registrationUrlProblem(url: URL, host: URL, configured: readonly string[] = []): string | undefined {
  const isLoopback = isLoopbackTunnelHost(host);
  if (url.protocol !== 'https:' && !(isLoopback && url.protocol === 'http:')) {
    return `it is not an https URL${isLoopback ? ' (or http, from a tunnel server on this machine)' : ''}`;
  }
  if (url.username !== '' || url.password !== '') return 'it holds a user name or password';
  const domains = registrationDomains(host, configured);
  if (!domains.some((domain) => isSubdomainOf(url.hostname, domain))) {
    return domains.length === 0
      ? `a server reached by IP address has no domain its tunnels could be under`
      : `its host is not a subdomain of ${domains.join(' or ')}`;
  }
  return undefined;
}

function bareHostname(hostname: string): string {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function isIpLiteral(name: string): boolean {
  return name.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name);
}
