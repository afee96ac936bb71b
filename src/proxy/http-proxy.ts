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
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createProxyServer, type ProxyServer, type ServerOptions } from 'http-proxy-3';

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
  /**
   * Whether a connection that reached us is one of our own connections to
   * the target (its two ends are the two ends of one of them, swapped): the
   * target is this proxy, and forwarding would loop forever. Both ends, not
   * the port alone: Linux gives the same local port to connections to
   * different places, so a caller's port is often one of ours too.
   */
  isOwnConnection(socket: SocketEnds): boolean;
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
type WithHandlers = { [HANDLERS]?: ForwardHandlers };

/** The request's handlers ride on the request itself (cheaper than a WeakMap). */
function handlersOf(req: IncomingMessage): ForwardHandlers | undefined {
  return (req as WithHandlers)[HANDLERS];
}

/** Forgets a forwarded request's handlers (once its exchange is over). */
export function releaseForwarded(req: IncomingMessage): void {
  (req as WithHandlers)[HANDLERS] = undefined;
}

/**
 * How many targets keep their ProxyServer (a `setTarget` adds one; in-flight
 * requests of the previous target finish on theirs).
 */
const MAX_TARGETS = 4;

/** The two ends of a TCP connection, as a socket tells them. */
interface SocketEnds {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}

/** `from→to`, IPv4-mapped IPv6 addresses as IPv4 (a dual-stack server sees 127.0.0.1 as ::ffff:127.0.0.1). */
function connectionKey(fromAddress: string | undefined, fromPort: number | undefined, toAddress: string | undefined, toPort: number | undefined): string | undefined {
  if (fromAddress === undefined || fromPort === undefined || toAddress === undefined || toPort === undefined) return undefined;
  const plain = (address: string) => address.replace(/^::ffff:/i, '');
  return `${plain(fromAddress)}:${fromPort}→${plain(toAddress)}:${toPort}`;
}

export function createForwarder(options: ForwarderOptions = {}): Forwarder {
  const idleSocketMs = options.idleSocketMs ?? 4_000;
  const maxSockets = options.maxSockets ?? 256;
  /** Our open connections to the target, from our end to theirs (connectionKey). */
  const ownConnections = new Set<string>();
  const track = (socket: Socket): void => {
    const note = () => {
      const key = connectionKey(socket.localAddress, socket.localPort, socket.remoteAddress, socket.remotePort);
      if (key === undefined) return;
      ownConnections.add(key);
      socket.once('close', () => ownConnections.delete(key));
    };
    if (socket.localPort !== undefined) note();
    else socket.once('connect', note);
  };
  const agentOptions = { keepAlive: true, timeout: idleSocketMs, maxSockets };
  let httpAgent: HttpAgent | undefined;
  let httpsAgent: HttpsAgent | undefined;
  const agentFor = (target: URL): HttpAgent =>
    target.protocol === 'https:' ? (httpsAgent ??= trackingAgent(new HttpsAgent(agentOptions), track)) : (httpAgent ??= trackingAgent(new HttpAgent(agentOptions), track));

  /*
   * One ProxyServer per target, the target and agent in its own options, so
   * `web()` gets no per-request options object and no per-request callback:
   * measured, with per-request options many requests' objects were promoted
   * out of V8's young generation, and forwarding alone took about 20 µs more
   * CPU per request. Errors come through the server's events, which find the
   * request's handlers on the request.
   */
  const proxies = new Map<string, ProxyServer>();
  const proxyFor = (target: URL): ProxyServer => {
    let proxy = proxies.get(target.href);
    if (proxy) return proxy;
    const serverOptions: ServerOptions = {
      target,
      agent: agentFor(target),
      selfHandleResponse: true,
      xfwd: false,
      changeOrigin: false,
      ws: true,
      // A local dev server over https almost always has a self-signed certificate.
      secure: false,
    };
    proxy = createProxyServer(serverOptions);
    proxy.on('proxyReq', (upstream, req) => handlersOf(req)?.onUpstreamRequest(upstream));
    proxy.on('proxyRes', (response, req) => handlersOf(req)?.onResponse(response));
    // http-proxy-3 reports "the caller's socket is gone and the upstream reset"
    // here instead of as an error.
    proxy.on('econnreset', (error, req) => handlersOf(req)?.onError(error));
    proxy.on('error', (error, req) => {
      handlersOf(req)?.onError(error);
    });
    if (proxies.size >= MAX_TARGETS) {
      const [oldest] = proxies.keys();
      if (oldest !== undefined) proxies.delete(oldest);
    }
    proxies.set(target.href, proxy);
    return proxy;
  };

  return {
    forward(req, target, handlers) {
      (req as WithHandlers)[HANDLERS] = handlers;
      proxyFor(target).web(req, DETACHED_RESPONSE);
    },
    isOwnConnection(socket) {
      // Seen from our listening side, their end is the remote one.
      const key = connectionKey(socket.remoteAddress, socket.remotePort, socket.localAddress, socket.localPort);
      return key !== undefined && ownConnections.has(key);
    },
    upgrade(req, socket, head, target, onError) {
      proxyFor(target).ws(req, socket, head, undefined, (error) => onError(error));
    },
    close() {
      httpAgent?.destroy();
      httpsAgent?.destroy();
      for (const proxy of proxies.values()) {
        proxy.removeAllListeners();
        // The library's own error guard: keep one listener so a late error is not thrown.
        proxy.on('error', () => {
          /* After close every late error is moot: the exchanges were already recorded. */
        });
      }
      proxies.clear();
      ownConnections.clear();
    },
  };
}

/** The agent, with every connection it opens handed to `track` (Agent#createConnection is its documented hook). */
function trackingAgent<A extends HttpAgent>(agent: A, track: (socket: Socket) => void): A {
  const create = (agent as unknown as { createConnection: (...args: unknown[]) => Socket }).createConnection.bind(agent);
  (agent as unknown as { createConnection: (...args: unknown[]) => Socket }).createConnection = (...args: unknown[]) => {
    const socket = create(...args);
    if (socket) track(socket);
    return socket;
  };
  return agent;
}
