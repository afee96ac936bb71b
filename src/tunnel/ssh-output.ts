/**
 * What an SSH tunnel server prints once `ssh -R` forwarded a port, and what
 * OpenSSH prints when it cannot get there. From each service's observed
 * output:
 * - localhost.run: `3a5b7c9d1e2f.lhr.life tunneled with tls termination, https://3a5b7c9d1e2f.lhr.life`,
 *   or with `-- --output json` a line like `{"event":"tcpip-forward",…,"address":"3a5b7c9d1e2f.lhr.life",…}`;
 *   its banner also names https://localhost.run/docs/… and https://admin.localhost.run/ (never the tunnel);
 * - serveo: `Forwarding HTTP traffic from https://abc123.serveo.net`;
 * - pinggy: the URLs alone on their lines, `http://…a.free.pinggy.link` then `https://…a.free.pinggy.link`;
 * - OpenSSH: `Host key verification failed.`, `Permission denied (publickey).`,
 *   `Warning: remote port forwarding failed for listen port 80`, `ssh: Could not resolve hostname …`.
 */
export type SshLine =
  | { kind: 'url'; url: string }
  | { kind: 'host-key-unknown' }
  | { kind: 'auth-failed' }
  | { kind: 'forward-refused' }
  | { kind: 'other' };

const TUNNELED = /tunneled with tls termination,\s*(https:\/\/[^\s,]+)/i;
const FORWARDING = /Forwarding HTTP traffic from\s+(https:\/\/\S+)/i;
/** An https origin alone on its line (pinggy, and self-hosted servers that print just the URL). */
const ALONE = /^\s*(https:\/\/[a-z0-9.-]+(?::\d+)?)\/?\s*$/i;
/** Service pages that banners link to; never a tunnel. */
const NOT_TUNNELS = /^https:\/\/(?:admin\.)?localhost\.run(?:[/:]|$)|^https:\/\/(?:www\.|dashboard\.)?pinggy\.io(?:[/:]|$)|^https:\/\/(?:www\.)?serveo\.net(?:[/:]|$)/i;

export function readSshLine(line: string): SshLine {
  const text = line.trim();
  if (/Host key verification failed/i.test(text) || /REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(text)) return { kind: 'host-key-unknown' };
  if (/Permission denied \(/i.test(text) || /Too many authentication failures/i.test(text)) return { kind: 'auth-failed' };
  if (/remote port forwarding failed/i.test(text)) return { kind: 'forward-refused' };
  const url = TUNNELED.exec(text)?.[1] ?? FORWARDING.exec(text)?.[1] ?? jsonAddress(text) ?? ALONE.exec(text)?.[1];
  if (url && !NOT_TUNNELS.test(url)) {
    try {
      return { kind: 'url', url: new URL(url).origin };
    } catch {
      return { kind: 'other' }; // looked like a URL, was not one
    }
  }
  return { kind: 'other' };
}

function jsonAddress(text: string): string | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(text) as { address?: unknown; listen_host?: unknown };
    const address = typeof parsed.address === 'string' ? parsed.address : undefined;
    if (!address || !/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(address)) return undefined;
    return `https://${address}`;
  } catch {
    return undefined; // a line that starts with "{" but is not JSON: not the address line
  }
}
