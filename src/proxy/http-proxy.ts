/**
 * The adapter around how requests reach the dev server. The rest of
 * src/proxy sees only `Forwarder`: "send this request to the target and tell
 * me what came back".
 *
 * Requests are sent with Node's own `http.request` on one keep-alive agent
 * per protocol, the answer handed back untouched (recording-proxy.ts
 * answers the caller itself). That is what http-proxy-3 did for us with
 * `selfHandleResponse`, less its per-request work we had no use for (an
 * options copy, its passes, six event emissions, a closure per handler, a
 * URL parse of every plain path: measured ~20–40 µs of CPU per call at
 * 250 calls/s); the request it would have sent is the same: the headers as
 * they are on `req.headers`, the path http-proxy-3 built
 * (upstream-path.ts), `content-length: 0` on a DELETE or OPTIONS without a
 * length (its `deleteLength`), no `trailer` header, and an `ECONNRESET` with
 * the caller gone destroys the upstream request. The caller hanging up does
 * not abort the request to the dev server (Median's real route keeps
 * running then, and we want its late answer on record).
 *
 * WebSocket upgrades (a dev server's hot reload) still go through
 * http-proxy-3's `ws` pass: they are not calls, and its upgrade handling
 * earns its place there.
 *
 * Target connections: one keep-alive agent per protocol, created lazily,
 * destroyed in `close()`. A target named `localhost` is connected to as given:
 * Node 20 tries every address the name resolves to (`::1` and `127.0.0.1`,
 * happy eyeballs, `net.getDefaultAutoSelectFamily()`), so a dev server bound
 * to either answers, and keep-alive makes that lookup rare.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createProxyServer, type ProxyServer, type ServerOptions } from 'http-proxy-3';
import { targetBasePath, upstreamPath } from './upstream-path.js';

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

const HANDLERS = Symbol('median-dev.forward-handlers');
type WithHandlers = { [HANDLERS]?: ForwardHandlers };

/** The request's handlers ride on the request itself (cheaper than a WeakMap). */
function handlersOf(req: IncomingMessage): ForwardHandlers | undefined {
  return (req as WithHandlers)[HANDLERS];
}

/** Forgets a forwarded request's handlers (once its exchange is over). */
export function releaseForwarded(req: IncomingMessage): void {
  (req as WithHandlers)[HANDLERS] = undefined;
  const upstream = (req as WithUpstream)[UPSTREAM];
  // The two forget each other too: no link keeps a finished request alive. A late error on either finds nothing to tell.
  if (upstream) (upstream as WithCaller)[CALLER] = undefined;
  (req as WithUpstream)[UPSTREAM] = undefined;
}

/* The request and its upstream request find each other through symbols: shared listeners, no closure per request. */
const UPSTREAM = Symbol('median-dev.upstream');
const CALLER = Symbol('median-dev.caller');
type WithUpstream = { [UPSTREAM]?: ClientRequest | undefined };
type WithCaller = { [CALLER]?: IncomingMessage | undefined };

/** http-proxy-3's error handler: an upstream reset after the caller's socket is gone ends the upstream request too. */
function forwardFailed(req: IncomingMessage, upstream: ClientRequest | undefined, error: Error & { code?: string }): void {
  const handlers = handlersOf(req);
  if (req.socket.destroyed && error.code === 'ECONNRESET') {
    handlers?.onError(error);
    upstream?.destroy();
    return;
  }
  handlers?.onError(error);
}
function onCallerRequestError(this: IncomingMessage, error: Error): void {
  forwardFailed(this, (this as WithUpstream)[UPSTREAM], error);
}
function onUpstreamError(this: ClientRequest, error: Error): void {
  const req = (this as WithCaller)[CALLER];
  if (req) forwardFailed(req, this, error);
}
function onUpstreamResponse(this: ClientRequest, response: IncomingMessage): void {
  const req = (this as WithCaller)[CALLER];
  if (req) handlersOf(req)?.onResponse(response);
}

/** What a target needs per request, computed once per target. */
interface TargetPlan {
  send: typeof httpRequest;
  hostname: string;
  port: number;
  basePath: string;
  agent: HttpAgent;
  isHttps: boolean;
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
  /** How many of them start at each local port: a caller whose port is none of these is not one of ours, without building its key. */
  const ownLocalPorts = new Map<number, number>();
  const track = (socket: Socket): void => {
    const note = () => {
      const key = connectionKey(socket.localAddress, socket.localPort, socket.remoteAddress, socket.remotePort);
      if (key === undefined) return;
      const port = socket.localPort!;
      ownConnections.add(key);
      ownLocalPorts.set(port, (ownLocalPorts.get(port) ?? 0) + 1);
      socket.once('close', () => {
        ownConnections.delete(key);
        const left = (ownLocalPorts.get(port) ?? 1) - 1;
        if (left > 0) ownLocalPorts.set(port, left);
        else ownLocalPorts.delete(port);
      });
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
   * One ProxyServer per target for WebSocket upgrades only, the target and
   * agent in its own options.
   */
  const proxies = new Map<string, ProxyServer>();
  const proxyFor = (target: URL): ProxyServer => {
    let proxy = proxies.get(target.href);
    if (proxy) return proxy;
    const serverOptions: ServerOptions = {
      target,
      agent: agentFor(target),
      xfwd: false,
      changeOrigin: false,
      ws: true,
      // A local dev server over https almost always has a self-signed certificate.
      secure: false,
    };
    proxy = createProxyServer(serverOptions);
    // Errors of an upgrade come through its callback (upgrade below); the library's own guard wants a listener.
    proxy.on('error', () => undefined);
    if (proxies.size >= MAX_TARGETS) {
      const [oldest] = proxies.keys();
      if (oldest !== undefined) proxies.delete(oldest);
    }
    proxies.set(target.href, proxy);
    return proxy;
  };

  /* The last target's plan: `setTarget` is rare, so one kept plan serves nearly every request. */
  let plan: { href: string; plan: TargetPlan } | undefined;
  const planFor = (target: URL): TargetPlan => {
    if (plan?.href === target.href) return plan.plan;
    const isHttps = target.protocol === 'https:';
    // As http-proxy-3's setupOutgoing: an IPv6 host without its brackets, the port or the protocol's.
    const hostname = target.hostname.startsWith('[') && target.hostname.endsWith(']') ? target.hostname.slice(1, -1) : target.hostname;
    const made: TargetPlan = {
      send: isHttps ? (httpsRequest as unknown as typeof httpRequest) : httpRequest,
      hostname,
      port: Number(target.port) || (isHttps ? 443 : 80),
      basePath: targetBasePath(target),
      agent: agentFor(target),
      isHttps,
    };
    plan = { href: target.href, plan: made };
    return made;
  };

  return {
    forward(req, target, handlers) {
      (req as WithHandlers)[HANDLERS] = handlers;
      const to = planFor(target);
      const headers = req.headers;
      // http-proxy-3's deleteLength: a DELETE or OPTIONS without a length is sent as an empty body.
      if ((req.method === 'DELETE' || req.method === 'OPTIONS') && !headers['content-length']) {
        headers['content-length'] = '0';
        delete headers['transfer-encoding'];
      }
      // Node's header names are lower-case: the one http-proxy-3 never sends.
      delete headers.trailer;
      const upstream = to.send({
        hostname: to.hostname,
        port: to.port,
        method: req.method,
        path: upstreamPath(to.basePath, req.url ?? ''),
        headers,
        agent: to.agent,
        ...(to.isHttps ? { rejectUnauthorized: false } : {}),
      });
      (upstream as WithCaller)[CALLER] = req;
      (req as WithUpstream)[UPSTREAM] = upstream;
      req.on('error', onCallerRequestError);
      upstream.on('error', onUpstreamError);
      upstream.on('response', onUpstreamResponse);
      handlers.onUpstreamRequest(upstream);
      req.pipe(upstream);
    },
    isOwnConnection(socket) {
      // Seen from our listening side, their end is the remote one.
      if (socket.remotePort === undefined || !ownLocalPorts.has(socket.remotePort)) return false;
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
      ownLocalPorts.clear();
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
