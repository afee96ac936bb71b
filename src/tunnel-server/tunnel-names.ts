import { randomBytes } from 'node:crypto';

/** The names a client may ask for (the server answers 403 otherwise). */
export const TUNNEL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{2,62}$/;

/** The 403 message, worded like localtunnel-server's. */
export const INVALID_NAME_MESSAGE =
  'Invalid subdomain. Subdomains must be lowercase and between 3 and 63 alphanumeric characters or hyphens.';

export function isValidTunnelName(name: string): boolean {
  return TUNNEL_NAME_PATTERN.test(name);
}

/** A random id that `isTaken` does not know, always a valid name. */
export function randomTunnelId(isTaken: (id: string) => boolean): string {
  for (;;) {
    const id = `lt-${randomBytes(5).toString('hex')}`;
    if (!isTaken(id)) return id;
  }
}

/**
 * The tunnel id a Host header names, or undefined when the host is the
 * server's own (no subdomain of `domain`). Nested subdomains give '' (unknown).
 */
export function tunnelIdFromHost(hostHeader: string | undefined, domain: string): string | undefined {
  const hostname = hostnameOf(hostHeader ?? '');
  const suffix = `.${domain}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const id = hostname.slice(0, -suffix.length);
  return id.includes('.') ? '' : id;
}

/** `Host` header or URL hostname → lowercase hostname without port or trailing dot. */
export function hostnameOf(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) return name.slice(0, name.indexOf(']') + 1);
  const colon = name.lastIndexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
