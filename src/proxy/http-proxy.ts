/**
 * The adapter around how requests reach the dev server. The rest of
 * src/proxy sees only `Forwarder`: "send this request to the target and tell
 * me what came back".
 *
 * Calls are sent by our own HTTP/1.1 client on kept connections
 * (upstream-pool.ts), their answers framed by a strict parser
 * (answer-parser.ts), not by Node's `http.request`: its second client stack
 * (ClientRequest, IncomingMessage, the Agent's bookkeeping) cost ~100 µs of
 * CPU per call at 250 calls/s through the tunnel. The request the dev server
 * gets is the one http-proxy-3 (and then `http.request`) sent: the headers as
 * they are on `req.headers`, the path http-proxy-3 built (upstream-path.ts),
 * `content-length: 0` on a DELETE or OPTIONS without a length (its
 * `deleteLength`), no `trailer` header, and an `ECONNRESET` with the caller
 * gone ends the upstream call. The caller hanging up does not abort the
 * request to the dev server (Median's real route keeps running then, and we
 * want its late answer on record). An answer the parser cannot frame safely
 * is refused like one Node's parser refused: 502 `target_unreachable`, or the
 * caller cut off with `target_reset` once the answer had started.
 *
 * WebSocket upgrades (a dev server's hot reload) still go through
 * http-proxy-3's `ws` pass on a Node keep-alive agent: they are not calls,
 * and its upgrade handling earns its place there. The library loads at the
 * first upgrade, not with the daemon: its ~15 files took ~14 ms of the
 * start's critical path (the proxy listens, then the tunnel registers), and a
 * tool route with no hot reload never needs them.
 *
 * A target named `localhost` is connected to as given: Node 20 tries every
 * address the name resolves to (`::1` and `127.0.0.1`, happy eyeballs,
 * `net.getDefaultAutoSelectFamily()`), so a dev server bound to either
 * answers, and kept connections make that lookup rare.
 */
import { Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ProxyServer, ServerOptions } from 'http-proxy-3';
import { releaseRequest, requestHead, UpstreamPool, type UpstreamHandlers, type UpstreamTarget } from './upstream-pool.js';
import { targetBasePath, upstreamPath } from './upstream-path.js';

/**
 * What the forwarder tells about one call: the call exists, the answer's head
 * (status and headers; the body follows), its bytes, its end; or an error (no
 * complete answer: refused, reset, a framing refused; may come after onResponse).
 */
export type ForwardHandlers = UpstreamHandlers;
export type { UpstreamAnswer, UpstreamCall } from './upstream-call.js';

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

/** Forgets a forwarded request (once its exchange is over): a late event of its call finds nothing to tell. */
export function releaseForwarded(req: IncomingMessage): void {
  releaseRequest(req);
}

/** What the upgrades use of http-proxy-3, loaded at the first one. */
type ProxyLibrary = Pick<typeof import('http-proxy-3'), 'createProxyServer'>;

/** What a target needs per request, computed once per target. */
interface TargetPlan extends UpstreamTarget {
  basePath: string;
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
  const pool = new UpstreamPool({ idleSocketMs, maxSockets, onConnection: track });
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
  let library: ProxyLibrary | undefined;
  let loadingLibrary: Promise<ProxyLibrary> | undefined;
  let isClosed = false;
  const proxyFor = ({ createProxyServer }: ProxyLibrary, target: URL): ProxyServer => {
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
    const port = Number(target.port) || (isHttps ? 443 : 80);
    // As http.request builds Host when a request has none: the name, bracketed if IPv6, and a port that is not the protocol's.
    const hostHeader = `${hostname.includes(':') ? `[${hostname}]` : hostname}${port === (isHttps ? 443 : 80) ? '' : `:${port}`}`;
    const made: TargetPlan = { key: `${target.protocol}//${hostname}:${port}`, hostname, port, isHttps, hostHeader, basePath: targetBasePath(target) };
    plan = { href: target.href, plan: made };
    return made;
  };

  return {
    forward(req, target, handlers) {
      const to = planFor(target);
      const headers = req.headers;
      const method = req.method ?? 'GET';
      // http-proxy-3's deleteLength: a DELETE or OPTIONS without a length is sent as an empty body.
      if ((method === 'DELETE' || method === 'OPTIONS') && !headers['content-length']) {
        headers['content-length'] = '0';
        delete headers['transfer-encoding'];
      }
      // Node's header names are lower-case: the one http-proxy-3 never sends.
      delete headers.trailer;
      pool.forward(req, to, requestHead(method, upstreamPath(to.basePath, req.url ?? ''), headers, to), handlers);
    },
    isOwnConnection(socket) {
      // Seen from our listening side, their end is the remote one.
      if (socket.remotePort === undefined || !ownLocalPorts.has(socket.remotePort)) return false;
      const key = connectionKey(socket.remoteAddress, socket.remotePort, socket.localAddress, socket.localPort);
      return key !== undefined && ownConnections.has(key);
    },
    upgrade(req, socket, head, target, onError) {
      const pass = (loaded: ProxyLibrary) => proxyFor(loaded, target).ws(req, socket, head, undefined, (error) => onError(error));
      if (library) return pass(library);
      // The socket waits unread meanwhile: its bytes stay in its buffer for the pass.
      const loading = (loadingLibrary ??= import('http-proxy-3'));
      loading.then(
        (loaded) => {
          library = loaded;
          if (isClosed || socket.destroyed) return void socket.destroy();
          pass(loaded);
        },
        (error: unknown) => {
          loadingLibrary = undefined; // a later upgrade tries again
          socket.destroy();
          onError(error instanceof Error ? error : new Error(String(error)));
        },
      );
    },
    close() {
      isClosed = true;
      pool.close();
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
