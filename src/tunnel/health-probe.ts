import { connect } from 'node:net';
import { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth, isProxyMarker } from '../shared/health-check.js';
import { fetchByRoute, findPublicRoute, type PublicReachOptions } from './public-url-fetch.js';
import type { HttpFetch } from '../shared/http-fetch.js';
import { recognizeLocaltunnelPage, type LocaltunnelPage } from './localtunnel-pages.js';

export { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth };

/** What one probe of `<public url>/__median-dev/health` found. */
export type HealthProbeResult =
  /** Something answered with this status; `isFromProxy` when the answer carried the marker header. */
  | { kind: 'answered'; status: number; isFromProxy?: boolean; /** A page of localtunnel's own (an outage, the browser reminder). */ page?: LocaltunnelPage }
  /** The host was reached (a TCP connection opened) but nothing answered in time: a wedged tunnel. */
  | { kind: 'no-answer' }
  /** DNS or connection failure: the URL could not be reached at all (our own network may be down). */
  | { kind: 'unreachable'; error?: unknown };

/** Reaches the public URL however the caller can (real fetch, the emulator's resolver, …). */
export type HealthProbe = (url: string, options: { signal: AbortSignal }) => Promise<HealthProbeResult>;

/** The abort reason of a probe's signal when its time ran out (not when it was stopped): then a probe may check whether the host takes connections. */
export const PROBE_TIMED_OUT = 'median-dev: probe timed out';

export type HealthVerdict = 'healthy' | 'tunnel-missing' | 'inconclusive';

/**
 * What a probe result says about the tunnel. Only this daemon's proxy
 * answers with its marker (its instance id): any other answer, whatever its
 * status, came from something between (the tunnel server's 404 or 503, a
 * front proxy's 502/504 page, another median-dev), so the tunnel does not
 * reach us; a host that was reached but did not answer is wedged. An
 * unreachable URL proves nothing about the tunnel (our own network may be down).
 */
export function judgeHealthProbe(result: HealthProbeResult): HealthVerdict {
  if (result.kind === 'unreachable') return 'inconclusive';
  if (result.kind === 'no-answer') return 'tunnel-missing';
  return result.isFromProxy ? 'healthy' : 'tunnel-missing';
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
 * A probe that reaches the public URL the way this machine can (see
 * findPublicRoute: by its name, or through the tunnel server when the name
 * does not resolve here; a URL reached neither way is `unreachable`, which
 * proves nothing). The answer counts as the proxy's when it carries the
 * proxy's marker header or is the proxy's health JSON
 * `{ok: true, service: "median-dev", instance}` (with `instanceId` given,
 * only that instance's).
 */
export function createFetchHealthProbe(options: PublicReachOptions & { fetch?: HttpFetch; instanceId?: string } = {}): HealthProbe {
  return async (url, { signal }) => {
    const route = await findPublicRoute(url, options);
    if (route.kind === 'none') return { kind: 'unreachable', error: route.error };
    try {
      // bypass-tunnel-reminder skips loca.lt's interstitial page for browsers.
      const res = await fetchByRoute(route, url, { signal, headers: { 'bypass-tunnel-reminder': '1', accept: 'application/json' } }, options.fetch);
      const text = (await res.text()).slice(0, 4096);
      const isFromProxy = isProxyMarker(res.headers.get(HEALTH_MARKER_HEADER), options.instanceId) || isProxyHealth(text, options.instanceId);
      const page = isFromProxy ? undefined : recognizeLocaltunnelPage(res.status, text);
      return { kind: 'answered', status: res.status, isFromProxy, ...(page ? { page } : {}) };
    } catch (error) {
      // Stopped by the caller's timeout: a host that still takes connections is wedged, not unreachable.
      if (signal.reason === PROBE_TIMED_OUT && (await canConnect(route.kind === 'via' ? route.origin : url, CONNECT_CHECK_MS))) return { kind: 'no-answer' };
      return { kind: 'unreachable', error };
    }
  };
}

const CONNECT_CHECK_MS = 1_000;

/** Whether a TCP connection to the URL's host and port opens within `timeoutMs`. */
export function canConnect(url: string, timeoutMs: number): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (isOpen: boolean): void => {
      socket.destroy();
      resolve(isOpen);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
