import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth, isProxyMarker } from '../shared/health-check.js';

export { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyHealth };

/** What one probe of `<public url>/__median-dev/health` found. */
export type HealthProbeResult =
  /** Something answered with this status; `isFromProxy` when the answer carried the marker header. */
  | { kind: 'answered'; status: number; isFromProxy?: boolean }
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
 * A probe that uses `fetch` (global fetch by default). The answer counts as
 * the proxy's when it carries the proxy's marker header or is the proxy's health
 * JSON `{ok: true, service: "median-dev", instance}` (with `instanceId`
 * given, only that instance's).
 */
export function createFetchHealthProbe(options: { fetch?: typeof fetch; instanceId?: string; via?: string } = {}): HealthProbe {
  const doFetch = options.via ? viaFetch(options.via) : (options.fetch ?? fetch);
  return async (url, { signal }) => {
    // Names under the reserved TLDs (RFC 6761: the loopback tunnel server's
    // .test hostnames) never resolve publicly: asking DNS would prove nothing.
    if (isReservedHostname(url) && !options.via) return { kind: 'unreachable' };
    try {
      // bypass-tunnel-reminder skips loca.lt's interstitial page for browsers.
      const res = await doFetch(url, { signal, redirect: 'manual', headers: { 'bypass-tunnel-reminder': '1', accept: 'application/json' } });
      const text = (await res.text()).slice(0, 4096);
      return { kind: 'answered', status: res.status, isFromProxy: isProxyMarker(res.headers.get(HEALTH_MARKER_HEADER), options.instanceId) || isProxyHealth(text, options.instanceId) };
    } catch (error) {
      // Stopped by the caller's timeout: a host that still takes connections is wedged, not unreachable.
      if (signal.reason === PROBE_TIMED_OUT && (await canConnect(options.via ?? url, CONNECT_CHECK_MS))) return { kind: 'no-answer' };
      return { kind: 'unreachable', error };
    }
  };
}

const CONNECT_CHECK_MS = 1_000;

/**
 * A fetch that sends every request to the `via` origin with the URL's host in
 * the Host header (fetch itself may not set Host): how the end-to-end tests'
 * daemon reaches its .test tunnel hostnames through the loopback tunnel server.
 */
function viaFetch(via: string): typeof fetch {
  const origin = new URL(via);
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(String(input));
      const req = httpRequest(
        { host: origin.hostname, port: origin.port, path: `${target.pathname}${target.search}`, headers: { host: target.host }, signal: init?.signal ?? undefined, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers }));
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
}

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
