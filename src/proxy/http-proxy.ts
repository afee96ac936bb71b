/**
 * The one adapter around `http-proxy-3`. The rest of src/proxy sees only
 * `Forwarder`: "send this request to the target and tell me what came back".
 *
 * We run http-proxy-3 with `selfHandleResponse` and answer the caller
 * ourselves (recording-proxy.ts), for one reason: when the caller hangs up
 * (Median gives up after 10 s and closes the tunnel connection),
 * http-proxy-3 would abort the request to the dev server, and the route's
 * late answer would be lost. Median's real route keeps running in that case,
 * and we want its eventual answer on record. So http-proxy-3 is handed a
 * detached stand-in for the response (see DETACHED_RESPONSE) and the real
 * response stays ours.
 *
 * Target connections: one keep-alive agent per protocol, created lazily,
 * destroyed in `close()`. A target named `localhost` is connected to as given:
 * Node 20 tries every address the name resolves to (`::1` and `127.0.0.1`,
 * happy eyeballs, `net.getDefaultAutoSelectFamily()`), so a dev server bound
 * to either answers, and keep-alive makes that lookup rare.
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';
import { createProxyServer, type ServerOptions } from 'http-proxy-3';

export interface ForwardHandlers {
  /** The request to the target exists (its headers may already be on the way). */
  onUpstreamRequest(upstream: ClientRequest): void;
  /** The target's answer started: status and headers are known, the body follows. */
  onResponse(response: IncomingMessage): void;
  /** No (complete) answer: connection refused, reset, aborted. May come after onResponse. */
  onError(error: Error): void;
}

export interface ForwarderOptions {
  /**
   * Idle keep-alive connections to the target are closed after this long
   * (below Node's default 5 s server keep-alive timeout, so we do not send
   * a request on a connection the dev server is just closing).
   */
  idleSocketMs?: number;
  /** Most connections to the target at once; more requests wait in line (default 256). */
  maxSockets?: number;
}

export interface Forwarder {
  /** Sends `req` (headers as they are on `req.headers`, body streamed) to `target`. */
  forward(req: IncomingMessage, target: URL, handlers: ForwardHandlers): void;
  /** Forwards a WebSocket upgrade; the two sockets are piped together. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: URL, onError: (error: Error) => void): void;
  /** Destroys every connection to the target. */
  close(): void;
}

/**
 * With `selfHandleResponse`, http-proxy-3 (1.23) touches the response only
 * to listen for its 'close' (to abort the upstream request when the caller
 * leaves) and to read `headersSent`/`finished`. This stand-in makes the
 * first a no-op: we decide what a caller hanging up means.
 */
const DETACHED_RESPONSE = Object.freeze({
  headersSent: false,
  finished: false,
  writableEnded: false,
  writableFinished: false,
  on() {
    return DETACHED_RESPONSE;
  },
  once() {
    return DETACHED_RESPONSE;
  },
}) as unknown as ServerResponse;

const HANDLERS = Symbol('median-dev.forward-handlers');

export function createForwarder(options: ForwarderOptions = {}): Forwarder {
  const idleSocketMs = options.idleSocketMs ?? 4_000;
  const maxSockets = options.maxSockets ?? 256;
  let httpAgent: HttpAgent | undefined;
  let httpsAgent: HttpsAgent | undefined;
  const agentFor = (target: URL): HttpAgent =>
    target.protocol === 'https:'
      ? (httpsAgent ??= new HttpsAgent({ keepAlive: true, timeout: idleSocketMs, maxSockets }))
      : (httpAgent ??= new HttpAgent({ keepAlive: true, timeout: idleSocketMs, maxSockets }));

  // The request's handlers ride on the request itself (cheaper than a WeakMap).
  const handlersOf = {
    get: (req: IncomingMessage): ForwardHandlers | undefined => (req as { [HANDLERS]?: ForwardHandlers })[HANDLERS],
    set: (req: IncomingMessage, handlers: ForwardHandlers): void => {
      (req as { [HANDLERS]?: ForwardHandlers })[HANDLERS] = handlers;
    },
  };
  const proxy = createProxyServer({
    selfHandleResponse: true,
    xfwd: false,
    changeOrigin: false,
    ws: true,
    // A local dev server over https almost always has a self-signed certificate.
    secure: false,
  });
  proxy.on('proxyReq', (upstream, req) => handlersOf.get(req)?.onUpstreamRequest(upstream));
  proxy.on('proxyRes', (response, req) => handlersOf.get(req)?.onResponse(response));
  // http-proxy-3 reports "the caller's socket is gone and the upstream reset"
  // here instead of to the per-request callback.
  proxy.on('econnreset', (error, req) => handlersOf.get(req)?.onError(error));
  proxy.on('error', (error, req) => {
    handlersOf.get(req)?.onError(error);
  });

  // One options object per target, reused: http-proxy-3 copies it per request.
  const optionsFor = new WeakMap<URL, ServerOptions>();
  const requestOptions = (target: URL): ServerOptions => {
    let found = optionsFor.get(target);
    if (!found) {
      found = { target, agent: agentFor(target) };
      optionsFor.set(target, found);
    }
    return found;
  };

  return {
    forward(req, target, handlers) {
      handlersOf.set(req, handlers);
      proxy.web(req, DETACHED_RESPONSE, requestOptions(target), (error) => handlers.onError(error));
    },
    upgrade(req, socket, head, target, onError) {
      proxy.ws(req, socket, head, requestOptions(target), (error) => onError(error));
    },
    close() {
      httpAgent?.destroy();
      httpsAgent?.destroy();
      proxy.removeAllListeners();
      // The library's own error guard: keep one listener so a late error is not thrown.
      proxy.on('error', () => {
        /* After close every late error is moot: the exchanges were already recorded. */
      });
    },
  };
}
