import { MedianDevError } from '../shared/index.js';
import type { HostResolver } from './outbound-request.js';

/** Public hostnames under `domain` are served by a self-hosted tunnel server at `host:port` (plain HTTP). */
export interface TunnelDomain {
  domain: string;
  host: string;
  port: number;
}

export const TUNNEL_DOMAIN_FORM = '<domain>=<host>:<port>, like lt.example.test=127.0.0.1:8080';

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `lt.example.test=127.0.0.1:8080` (also `…=http://127.0.0.1:8080`, `…=[::1]:8080`) → a TunnelDomain,
 * or throws `invalid_tunnel_domain` naming the right form.
 */
export function parseTunnelDomain(text: string): TunnelDomain {
  const bad = (why: string): MedianDevError =>
    new MedianDevError('invalid_tunnel_domain', `--tunnel-domain "${text}": ${why}. The form is ${TUNNEL_DOMAIN_FORM}.`);
  const at = text.indexOf('=');
  if (at < 0) throw bad('no "="');
  const domain = text.slice(0, at).trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
  if (!DOMAIN.test(domain)) throw bad(`"${text.slice(0, at)}" is not a domain name`);
  const where = /^(?:http:\/\/)?(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})\/?$/i.exec(text.slice(at + 1).trim());
  const port = where ? Number(where[2]) : Number.NaN;
  if (!where || port < 1 || port > 65535) throw bad(`"${text.slice(at + 1)}" is not a host and port`);
  return { domain, host: where[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** Sends `domain` and every name under it to its tunnel server; the longest matching domain wins. */
export function tunnelDomainResolver(domains: readonly TunnelDomain[]): HostResolver {
  const longestFirst = [...domains].sort((a, b) => b.domain.length - a.domain.length);
  return (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const found = longestFirst.find((d) => name === d.domain || name.endsWith(`.${d.domain}`));
    return found ? { host: found.host, port: found.port } : undefined;
  };
}

/** The server's address as a `--tunnel-host` URL. */
export function tunnelHostUrl(domain: TunnelDomain): string {
  return `http://${domain.host.includes(':') ? `[${domain.host}]` : domain.host}:${domain.port}`;
}
