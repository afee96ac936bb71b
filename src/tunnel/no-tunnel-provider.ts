import { UserError } from '../shared/errors.js';
import { TUNNEL_ERROR_CODES, openAbortedError } from './tunnel-errors.js';
import type { TunnelProvider } from './tunnel-provider.js';

/**
 * `--tunnel none`: the user brings the public origin (`--public-url`) that
 * already reaches the proxy. Opening checks nothing remote and is never lost.
 */
export function createNoTunnelProvider(options: { publicUrl: string }): TunnelProvider {
  const url = parsePublicUrl(options.publicUrl);
  return {
    name: 'none',
    async open(_request, { signal } = {}) {
      if (signal?.aborted) throw openAbortedError();
      return {
        url,
        subdomain: undefined,
        socketCount: () => undefined,
        bytesReceived: () => undefined,
        onLost: () => undefined,
        close: async () => undefined,
      };
    },
  };
}

/** `--public-url` → its origin (no path, no trailing slash). */
function parsePublicUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined; // reported below with the hint
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || (url.pathname !== '/' && url.pathname !== '')) {
    throw new UserError(TUNNEL_ERROR_CODES.invalidPublicUrl, `--public-url must be an origin like https://dev.example.com, not "${value}".`, {
      hint: 'Pass only scheme and host (and port); median-dev adds the route path itself.',
      exitCode: 2,
    });
  }
  return url.origin;
}
