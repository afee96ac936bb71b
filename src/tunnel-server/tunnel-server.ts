// Over 300 lines: a whole localtunnel server for tests and the demo, with its fault knobs (registration faults,
// front-proxy answers, dropped clients) next to the state they act on.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MedianDevError } from '../shared/errors.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { startClientSocketPool, type ClientSocketPool, type SocketReuse } from './client-socket-pool.js';
import { forwardRequest, forwardUpgrade, sendJson, type ForwardOptions } from './forward-to-client.js';
import { INVALID_NAME_MESSAGE, hostnameOf, isValidTunnelName, randomTunnelId, tunnelIdFromHost } from './tunnel-names.js';

export interface TunnelServerOptions {
  /** Interface for the server and every client listener. Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Public URLs are `<publicProtocol>://<id>.<domain>`. Default 'lt.median.test'. */
  domain?: string;
  publicProtocol?: 'https' | 'http';
  /** Sockets each client may open (`max_conn_count`). Default 10. */
  maxConnCount?: number;
  logger?: Logger;
  /** How long a request waits for a free tunnel socket before the 503. Default 2000 ms. */
  queueTimeoutMs?: number;
  /** A client without sockets this long is forgotten, like localtunnel-server does after 1 s. Default 1000 ms. */
  offlineGraceMs?: number;
  /** The offline grace and the wait for a free socket run on it (tests drive it); real time when left out. */
  clock?: Clock;
  /**
   * How the public URL in a registration answer is built. `domain` (default):
   * `<publicProtocol>://<id>.<domain>`. `host-header`: what localtunnel-server
   * really does (server.js: `schema + '://' + info.id + '.' + ctx.request.host`),
   * from the Host header of the registration request, whatever its --domain;
   * reached as `http://127.0.0.1:18080` it answers
   * `https://<id>.127.0.0.1:18080`, a URL that reaches nothing.
   */
  publicUrlFrom?: 'domain' | 'host-header';
  /**
   * Sockets the server really accepts per client; the rest are destroyed as
   * they connect. Default: `maxConnCount`. localtunnel-server advertises its
   * `--max-sockets` as `max_conn_count` but builds every TunnelAgent with
   * `maxSockets: 10` (ClientManager.js), so it accepts 10 and destroys the
   * rest on connect (TunnelAgent._onConnection).
   */
  acceptedSockets?: number;
  /**
   * `pool` (default): tunnel sockets are kept alive between requests, so a
   * steady client never reconnects. `localtunnel-server`: the real server's
   * socket churn (its TunnelAgent keeps one free socket and destroys the
   * others after their answer; the stock client then opens a new one:
   * ~0.8 connects per request at 16 in flight).
   */
  socketReuse?: SocketReuse;
}

/**
 * What a front proxy (nginx in front of localtunnel.me) answers on its own
 * behalf for a host the tunnel server does not serve: 502/503/504 with an HTML
 * page of its own, not the server's plain `404`.
 */
export type FrontProxyAnswer = null | { status: 502 | 503 | 504 };

export type RegistrationFault = null | { status: number } | 'garbage' | 'stall';

export interface TunnelServer {
  /** `http://<host>:<port>`: what a client passes as --tunnel-host. */
  url: string;
  port: number;
  domain: string;
  /** `<publicProtocol>://<id>.<domain>` */
  publicUrlFor(id: string): string;
  /** Maps a public hostname (the domain or any subdomain of it) to where to connect on loopback. */
  resolve(hostname: string): { host: string; port: number } | undefined;
  clients(): Array<{ id: string; url: string; sockets: number }>;
  /** Destroys the client's sockets; `forget` also unregisters it (its requests then get the 404). */
  dropClient(id: string, options?: { forget?: boolean }): void;
  /** The next registration asking for `name` gets a random id instead, as if the name were taken. */
  refuseName(name: string): void;
  /** Every registration asking for `name` gets a random id, as if another client held it, until `releaseName`. */
  holdName(name: string): void;
  releaseName(name: string): void;
  /** Lifting a 'stall' destroys the stalled registrations, so their clients retry. */
  setRegistrationFault(fault: RegistrationFault): void;
  /** From now on hosts without a client get the front proxy's answer instead of the server's 404 (null: the 404 again). */
  setFrontProxy(answer: FrontProxyAnswer): void;
  /**
   * A wedged tunnel: the client's sockets stay open and registered, but
   * requests for it are no longer passed through them (a server that stopped
   * forwarding, a NAT that forgot the flow). Requests get the front proxy's
   * answer when one is set, else hang until the caller gives up. `true` again
   * lifts it for new requests.
   */
  setForwarding(id: string, isForwarding: boolean): void;
  /**
   * Forgets the client's registration (its name becomes free, its requests get
   * the 404) but leaves its sockets open, as a server does that dropped a
   * client which then went silent (a laptop asleep): the client sees nothing.
   */
  forgetClientKeepingSockets(id: string): void;
  /**
   * `registrations`: registration requests received, faulted and refused ones
   * included; `refusedSockets`: tunnel sockets destroyed on connect because
   * the client had `acceptedSockets` already; `socketConnects`: tunnel
   * sockets taken (each a TCP connect of a client; the churn shows here).
   */
  stats(): { registrations: number; refusedSockets: number; socketConnects: number };
  /** Idempotent; closes every socket, listener and timer. */
  close(): Promise<void>;
}

const DEFAULTS = { host: '127.0.0.1', port: 0, domain: 'lt.median.test', publicProtocol: 'https', maxConnCount: 10 } as const;

/** A loopback server speaking localtunnel's protocol (SPEC §1.4), for tests and `median-dev demo`. */
export async function startTunnelServer(options: TunnelServerOptions = {}): Promise<TunnelServer> {
  const host = options.host ?? DEFAULTS.host;
  const domain = (options.domain ?? DEFAULTS.domain).toLowerCase();
  const publicProtocol = options.publicProtocol ?? DEFAULTS.publicProtocol;
  const maxConnCount = options.maxConnCount ?? DEFAULTS.maxConnCount;
  const acceptedSockets = options.acceptedSockets ?? maxConnCount;
  const publicUrlFrom = options.publicUrlFrom ?? 'domain';
  const offlineGraceMs = options.offlineGraceMs ?? 1000;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const forwardOptions: ForwardOptions = { queueTimeoutMs: options.queueTimeoutMs ?? 2000, publicProtocol, logger, clock };

  const pools = new Map<string, ClientSocketPool>();
  const refused = new Set<string>();
  const held = new Set<string>();
  const stalled = new Set<ServerResponse>();
  let fault: RegistrationFault = null;
  let frontProxy: FrontProxyAnswer = null;
  /** Clients (by registration, so one registered again under the name is not) that no longer get requests. */
  const wedged = new WeakSet<ClientSocketPool>();
  /** Pools forgotten with their sockets left open: closed only by close(). */
  const orphaned = new Set<ClientSocketPool>();
  let registrations = 0;
  let refusedSockets = 0;
  let socketConnects = 0;
  let closed = false;

  const publicUrlFor = (id: string): string => `${publicProtocol}://${id}.${domain}`;
  /** The registration answer's `url`: see `publicUrlFrom`. */
  const answerUrlFor = (id: string, registrationHost: string | undefined): string =>
    publicUrlFrom === 'host-header' ? `${publicProtocol}://${id}.${registrationHost ?? ''}` : publicUrlFor(id);

  const forget = (pool: ClientSocketPool): void => {
    if (pools.get(pool.id) === pool) pools.delete(pool.id);
    void pool.close();
  };

  const register = async (res: ServerResponse, requested: string | undefined, registrationHost: string | undefined): Promise<void> => {
    registrations += 1;
    if (closed) {
      res.destroy();
      return;
    }
    if (fault === 'stall') {
      stalled.add(res);
      res.once('close', () => stalled.delete(res));
      return;
    }
    if (fault === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>this is not the JSON you are looking for');
      return;
    }
    if (fault) {
      sendJson(res, fault.status, { message: `registration fault: ${fault.status}` });
      return;
    }
    if (requested !== undefined && !isValidTunnelName(requested)) {
      sendJson(res, 403, { message: INVALID_NAME_MESSAGE });
      return;
    }
    let id = requested;
    if (id !== undefined && (refused.delete(id) || held.has(id))) id = undefined;
    if (id === undefined || pools.has(id)) id = randomTunnelId((candidate) => pools.has(candidate));
    const pool = await startClientSocketPool({
      id,
      host,
      maxConnCount,
      acceptedSockets,
      offlineGraceMs,
      clock,
      socketReuse: options.socketReuse ?? 'pool',
      logger,
      onRefusedSocket: () => (refusedSockets += 1),
      onAcceptedSocket: () => (socketConnects += 1),
      onOffline: () => {
        logger.debug('tunnel client offline, forgetting it', { id });
        forget(pool);
      },
    });
    if (closed) {
      await pool.close();
      res.destroy();
      return;
    }
    pools.set(id, pool);
    logger.debug('tunnel client registered', { id, requested, port: pool.port });
    sendJson(res, 200, { id, port: pool.port, max_conn_count: maxConnCount, url: answerUrlFor(id, registrationHost) });
  };

  const handleOwn = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://tunnel-server.invalid');
    const path = url.pathname;
    if (req.method !== 'GET') return sendJson(res, 405, { message: 'Only GET is served here.' });
    if (path === '/api/status') return sendJson(res, 200, { tunnels: pools.size });
    const status = /^\/api\/tunnels\/([^/]+)\/status$/.exec(path);
    if (status) {
      const pool = pools.get(status[1] as string);
      if (!pool) return sendJson(res, 404, { message: 'no such tunnel' });
      return sendJson(res, 200, { connected_sockets: pool.socketCount() });
    }
    if (path === '/') {
      if (url.searchParams.has('new')) return void registerSafely(res, undefined, req.headers.host);
      return sendJson(res, 200, { message: 'median-dev loopback tunnel server: GET /?new or GET /<name> to register' });
    }
    const name = path.slice(1);
    if (name.includes('/')) return sendJson(res, 404, { message: 'Not found.' });
    return void registerSafely(res, name, req.headers.host);
  };

  const registerSafely = async (res: ServerResponse, requested: string | undefined, registrationHost: string | undefined): Promise<void> => {
    try {
      await register(res, requested, registrationHost);
    } catch (error) {
      logger.warn('tunnel registration failed', { error: (error as Error).message });
      if (!res.headersSent) sendJson(res, 500, { message: 'could not register the tunnel' });
    }
  };

  /**
   * The client a Host header names: a subdomain of `domain`, or with
   * `publicUrlFrom: 'host-header'` also `<id>.<anything>` for a registered id
   * (the URLs that mode hands out). undefined: the server's own host.
   */
  const tunnelIdOf = (hostHeader: string | undefined): string | undefined => {
    const id = tunnelIdFromHost(hostHeader, domain);
    if (id !== undefined || publicUrlFrom !== 'host-header') return id;
    const name = hostnameOf(hostHeader ?? '');
    const first = name.split('.')[0] ?? '';
    return name.includes('.') && pools.has(first) ? first : undefined;
  };

  const answerAsFrontProxy = (res: ServerResponse, answer: NonNullable<FrontProxyAnswer>): void => {
    const titles = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' } as const;
    const page = `<html><head><title>${answer.status} ${titles[answer.status]}</title></head><body><center><h1>${answer.status} ${titles[answer.status]}</h1></center><hr><center>nginx</center></body></html>`;
    res.writeHead(answer.status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) });
    res.end(page);
  };

  /** Requests held for a wedged client (no front proxy): ended by close(). */
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const id = tunnelIdOf(req.headers.host);
    if (id === undefined) return handleOwn(req, res);
    const pool = pools.get(id);
    if (!pool || wedged.has(pool)) {
      if (frontProxy) return answerAsFrontProxy(res, frontProxy);
      if (pool) {
        // Wedged and no front proxy: the request hangs, as on a server that stopped forwarding.
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      }
      return sendJson(res, 404, { error: `no tunnel is registered for "${hostnameOf(req.headers.host ?? '')}"` });
    }
    forwardRequest(req, res, pool, forwardOptions);
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const id = tunnelIdOf(req.headers.host);
    const found = id === undefined ? undefined : pools.get(id);
    const pool = found && !wedged.has(found) ? found : undefined;
    if (!pool) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    forwardUpgrade(req, socket, head, pool, forwardOptions);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new MedianDevError('tunnel_server_listen_failed', `The tunnel server could not listen on ${host}:${options.port ?? 0}.`, {
          cause: error,
          hint: 'Pick another port, or 0 for any free one.',
        }),
      ),
    );
    server.listen(options.port ?? DEFAULTS.port, host, () => resolve());
  });
  server.on('error', (error) => logger.warn('tunnel server error', { error: error.message }));
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    domain,
    publicUrlFor,
    resolve(hostname) {
      const name = hostnameOf(hostname);
      return name === domain || name.endsWith(`.${domain}`) ? { host, port } : undefined;
    },
    clients: () => [...pools.values()].map((p) => ({ id: p.id, url: publicUrlFor(p.id), sockets: p.socketCount() })),
    dropClient(id, dropOptions = {}) {
      const pool = pools.get(id);
      if (!pool) return;
      if (dropOptions.forget) forget(pool);
      else pool.dropSockets();
    },
    refuseName: (name) => void refused.add(name),
    holdName: (name) => void held.add(name),
    releaseName: (name) => void held.delete(name),
    setRegistrationFault(next) {
      fault = next;
      // Stalled registrations fail once the stall is lifted, so their clients retry.
      if (next !== 'stall') for (const res of stalled) res.destroy();
    },
    setFrontProxy(answer) {
      frontProxy = answer;
    },
    setForwarding(id, isForwarding) {
      const pool = pools.get(id);
      if (!pool) return;
      if (isForwarding) wedged.delete(pool);
      else wedged.add(pool);
    },
    forgetClientKeepingSockets(id) {
      const pool = pools.get(id);
      if (!pool) return;
      pools.delete(id);
      orphaned.add(pool);
    },
    stats: () => ({ registrations, refusedSockets, socketConnects }),
    close() {
      closing ??= (async () => {
        closed = true;
        for (const res of stalled) res.destroy();
        for (const res of hanging) res.destroy();
        const poolsClosed = Promise.allSettled([...pools.values(), ...orphaned].map((pool) => pool.close()));
        pools.clear();
        orphaned.clear();
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await Promise.allSettled([poolsClosed, serverClosed]);
      })();
      return closing;
    },
  };
}
