/**
 * The few answers the proxy gives itself instead of the dev server: its own
 * health check and the errors for a dev server that does not answer. Error
 * bodies use the route protocol's envelope `{error: {code, message}}`.
 */
import type { ServerResponse } from 'node:http';
import { HEALTH_MARKER_HEADER, HEALTH_PATH, healthBody } from '../shared/health-check.js';

export { HEALTH_PATH };

export const PROXY_ERROR_CODES = Object.freeze({
  /** Refused, reset, unknown host…: nothing answered (502). */
  targetUnreachable: 'target_unreachable',
  /** The dev server took the request and said nothing for upstreamGiveUpMs (504). */
  targetTimeout: 'target_timeout',
  /** The dev server's answer broke off after it started. */
  targetReset: 'target_reset',
  /** Our caller hung up before the answer reached it. */
  clientClosed: 'client_closed',
  /** median-dev stopped while the request was under way. */
  proxyClosed: 'proxy_closed',
  /** The request came from this proxy itself: --target points back at it (508). */
  proxyLoop: 'proxy_loop',
  /** The dev server command runs but does not listen yet (or has not said where): 503 with Retry-After. */
  devServerStarting: 'dev_server_starting',
});

/** What a caller is told to wait while the dev server starts (seconds, the `Retry-After` header). */
export const DEV_SERVER_STARTING_RETRY_AFTER_S = 2;

export const PROXY_MESSAGES = Object.freeze({
  targetUnreachable: (target: string, reason: string): string =>
    `median-dev: the dev server at ${target} is not answering (${reason}). Start it, or pass --target.`,
  targetTimeout: (target: string, ms: number): string =>
    `median-dev: the dev server at ${target} took the request but did not answer within ${formatSeconds(ms)}. Check it for a request that never finishes.`,
  targetReset: (target: string, reason: string): string =>
    `median-dev: the dev server at ${target} broke off its answer (${reason}).`,
  clientClosed: 'The caller hung up before the answer reached it (Median gives up after 10 s).',
  proxyClosed: 'median-dev stopped before the answer came.',
  proxyLoop: (target: string): string =>
    `median-dev: --target ${target} leads back to this proxy, so the request would go round forever. Point --target at your dev server (e.g. http://localhost:3000).`,
  healthMethod: 'Only GET is answered here.',
  devServerStarting: (target: string | undefined): string =>
    target === undefined
      ? `median-dev: the dev server is starting and has not said where it listens yet. Try again in ${DEV_SERVER_STARTING_RETRY_AFTER_S} s.`
      : `median-dev: the dev server is starting and does not listen at ${target} yet. Try again in ${DEV_SERVER_STARTING_RETRY_AFTER_S} s.`,
});

function formatSeconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The error's code (ECONNREFUSED, …) or its message, for the messages above. */
export function failureReason(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && code !== '' ? code : error.message || 'no answer';
}

/** Sends `{error: {code, message}}` with `status`, if the caller can still get it. */
export function sendProxyError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/**
 * `GET /__median-dev/health`: proves this port is a median-dev proxy (and
 * which one). It says nothing about recorded calls, on purpose: the port is
 * reachable from the internet through the tunnel.
 */
export function sendHealth(method: string | undefined, res: ServerResponse, instanceId: string): void {
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    sendProxyError(res, 405, 'method_not_allowed', PROXY_MESSAGES.healthMethod);
    return;
  }
  const body = healthBody(instanceId);
  res.writeHead(200, {
    [HEALTH_MARKER_HEADER]: instanceId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(method === 'HEAD' ? undefined : body);
}
