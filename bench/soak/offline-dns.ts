/**
 * Preloaded into the daemon (`NODE_OPTIONS=--import <this file>`) by the
 * soak: names under the loopback tunnel server's domain fail at once with
 * ENOTFOUND instead of being asked of the machine's DNS server. The daemon's
 * health probe fetches `https://<id>.<domain>/…` every 15 s; without this
 * each probe would send a DNS query off the machine (answered NXDOMAIN, so the
 * daemon sees the same failure either way). Nothing else is changed.
 *
 * The domain comes from MEDIAN_DEV_SOAK_OFFLINE_DOMAIN (set by the soak).
 */
import dns from 'node:dns';

const domain = (process.env.MEDIAN_DEV_SOAK_OFFLINE_DOMAIN ?? '').toLowerCase();

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: unknown, family?: number) => void;

if (domain !== '') {
  const original = dns.lookup;
  const isOffline = (hostname: unknown): boolean => {
    const name = String(hostname).toLowerCase().replace(/\.$/, '');
    return name === domain || name.endsWith(`.${domain}`);
  };
  const patched = function lookup(this: unknown, hostname: string, options: unknown, callback?: LookupCallback): unknown {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    if (isOffline(hostname)) {
      const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
        errno: -3008,
        syscall: 'getaddrinfo',
        hostname,
      });
      process.nextTick(done, error);
      return {};
    }
    return (original as (...args: unknown[]) => unknown).call(this, hostname, options, callback);
  };
  (dns as { lookup: unknown }).lookup = patched;
}
