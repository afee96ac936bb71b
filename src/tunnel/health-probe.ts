import { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth, isProxyMarker } from '../shared/health-check.js';

export { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth };

/** What one probe of `<public url>/__median-dev/health` found. */
export type HealthProbeResult =
  /** Something answered with this status; `isFromProxy` when the answer carried the marker header. */
  | { kind: 'answered'; status: number; isFromProxy?: boolean }
  /** DNS, connection or timeout failure: the URL could not be reached at all. */
  | { kind: 'unreachable'; error?: unknown };

/** Reaches the public URL however the caller can (real fetch, the emulator's resolver, …). */
export type HealthProbe = (url: string, options: { signal: AbortSignal }) => Promise<HealthProbeResult>;

export type HealthVerdict = 'healthy' | 'tunnel-missing' | 'inconclusive';

/**
 * What a probe result says about the tunnel. The tunnel server answers 404
 * (no such tunnel) or 503 (no free connection) on its own behalf; an
 * unreachable URL proves nothing about the tunnel (our own network may be down).
 */
export function judgeHealthProbe(result: HealthProbeResult): HealthVerdict {
  if (result.kind === 'unreachable') return 'inconclusive';
  if (result.isFromProxy) return 'healthy';
  if (result.status === 404 || result.status === 503) return 'tunnel-missing';
  if (result.status >= 200 && result.status <= 299) return 'healthy';
  return 'inconclusive';
}

/**
 * Counts tunnel-missing verdicts in a row; a healthy one resets the count,
 * an inconclusive one leaves it as it was.
 */
export function nextProbeStrikes(strikes: number, verdict: HealthVerdict): number {
  if (verdict === 'healthy') return 0;
  if (verdict === 'tunnel-missing') return strikes + 1;
  return strikes;
}

/**
 * A probe that uses `fetch` (global fetch by default). The answer counts as
 * the proxy's when it carries the proxy's marker header or is the proxy's health
 * JSON `{ok: true, service: "median-dev", instance}` (with `instanceId`
 * given, only that instance's).
 */
export function createFetchHealthProbe(options: { fetch?: typeof fetch; instanceId?: string } = {}): HealthProbe {
  const doFetch = options.fetch ?? fetch;
  return async (url, { signal }) => {
    // Names under the reserved TLDs (RFC 6761: the loopback tunnel server's
    // .test hostnames) never resolve publicly: asking DNS would prove nothing.
    if (isReservedHostname(url)) return { kind: 'unreachable' };
    try {
      // bypass-tunnel-reminder skips loca.lt's interstitial page for browsers.
      const res = await doFetch(url, { signal, redirect: 'manual', headers: { 'bypass-tunnel-reminder': '1', accept: 'application/json' } });
      const text = (await res.text()).slice(0, 4096);
      return { kind: 'answered', status: res.status, isFromProxy: isProxyMarker(res.headers.get(HEALTH_MARKER_HEADER), options.instanceId) || isProxyHealth(text, options.instanceId) };
    } catch (error) {
      return { kind: 'unreachable', error };
    }
  };
}

const RESERVED_TLDS = ['.test', '.localhost', '.invalid', '.example'];

/** Whether the URL's host is under a TLD reserved from public DNS (RFC 6761). */
export function isReservedHostname(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return RESERVED_TLDS.some((tld) => host.endsWith(tld));
  } catch {
    return false;
  }
}
