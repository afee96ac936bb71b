// Over 300 lines: startRecordingProxy is the proxy's one lifecycle (listen, route, health, upgrades, close in
// order); the parts that split off cleanly already live in their own files (call-exchange, record-batch, …).
/**
 * The recording reverse proxy every Median request passes through
 * (tunnel → this proxy on 127.0.0.1 → the dev server). Bodies reach the dev
 * server byte for byte, headers unchanged but for hop-by-hop ones
 * (hop-by-hop.ts); each request becomes one CallRecord (call-exchange.ts,
 * build-call-record.ts). WebSocket upgrades (dev servers' hot reload) are
 * forwarded too but not recorded: they are not calls.
 *
 * The target is connected to as given; see http-proxy.ts for `localhost`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { refuseClientError } from './refused-request.js';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { MEDIAN_CALL_LIMITS, newReplayKey, recordIdOfReplayMarker, REPLAY_OF_HEADER, type CallRecord } from '../median/index.js';
import { MedianDevError, UserError, createWorkInterval, silentLogger, type Clock, type Logger } from '../shared/index.js';
import type { RecordSettings } from './build-call-record.js';
import { CallExchange, type ExchangeContext } from './call-exchange.js';
import { forwardableRequestHeaders, maskCredentials } from './hop-by-hop.js';
import { createForwarder } from './http-proxy.js';
import { InFlightList } from './in-flight-list.js';
import { HEALTH_PATH, PROXY_MESSAGES, sendHealth } from './proxy-answers.js';
import { createRecordBatch, type RequestStartedInfo } from './record-batch.js';
import { addVia, hasPassedThrough } from './via-header.js';

export type { RequestStartedInfo } from './record-batch.js';

export interface RecordingProxyLimits {
  /** Median's wait for an answer (10 s); slower answers are `not-answering`, `lateAnswer`. */
  timeoutMs: number;
  /** Bodies (request and answer) are recorded up to this many bytes (1 MiB). */
  recordBodyBytes: number;
  /** Median's answer size limit (100 KB). */
  maxAnswerBytes: number;
  /** A caller must send its headers within this (30 s). */
  headersTimeoutMs: number;
  /** A caller must send its whole request within this (60 s). */
  requestTimeoutMs: number;
  /** We stop waiting for the dev server after this much silence (120 s): 504. */
  upstreamGiveUpMs: number;
}

export const DEFAULT_PROXY_LIMITS: Readonly<RecordingProxyLimits> = Object.freeze({
  timeoutMs: MEDIAN_CALL_LIMITS.timeoutMs,
  recordBodyBytes: 1024 * 1024,
  maxAnswerBytes: MEDIAN_CALL_LIMITS.maxAnswerBytes,
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  upstreamGiveUpMs: 120_000,
});

export interface RecordingProxyOptions {
  /** The dev server's origin, e.g. http://localhost:3000. */
  target: string;
  /** The route's path, e.g. /api/median. Other paths are forwarded and recorded as `other`. */
  route: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** The tool signing secret; without it every signature is `unchecked`. */
  secret?: Uint8Array;
  /** What the health endpoint answers as `instance` (default: a random UUID). */
  instanceId?: string;
  /**
   * The key replay markers are checked with (`replayMarker`): only a request
   * marked with it is recorded as a replay. Default: a fresh random one, so
   * no marker from outside this process counts.
   */
  replayKey?: string;
  limits?: Partial<RecordingProxyLimits>;
  /** Once per request, when it is complete (or given up). */
  onRecord(record: CallRecord): void | Promise<void>;
  /**
   * Holds each answer's end (its last bytes) until the promise onRecord
   * returned for its record settled (default true; at most 2 s), so an
   * answered call is written before its caller has it.
   */
  holdAnswersUntilRecorded?: boolean;
  /** Once per request, when its body has arrived (before the answer). */
  onRequestStarted?(info: RequestStartedInfo): void;
  /**
   * Whether the dev server is starting: `finding` (where it listens is not
   * known yet: requests are answered 503 at once), `starting` (a refused
   * connection is answered 503, not 502), null (default: it is up, or none is started by us).
   */
  devServerPhase?: () => 'finding' | 'starting' | null;
  /**
   * The target answered a call (any HTTP status). The dev server's own look
   * at its port runs every 250 ms: a call answered before that look must not
   * leave the next refused connection answered 503 "starting" instead of 502.
   */
  onTargetAnswered?: () => void;
  logger?: Logger;
  now?: () => number;
  /** How long an answer's end may be held for its record (2 s at most) runs on it (tests drive it); real time when left out. */
  clock?: Clock;
}

export interface RecordingProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Stops accepting, records what is under way, destroys every socket. Idempotent. */
  close(): Promise<void>;
  /** Key rotation: requests arriving from now on are checked with this secret. */
  setSecret(secret: Uint8Array | undefined): void;
  /** Points new requests at another dev server origin. */
  setTarget(target: string): void;
  /**
   * Serves a connection that did not come through the listener (a tunnel
   * socket): the same HTTP server reads it, so a tunnelled request takes no
   * second loopback hop. Destroyed at once after close().
   */
  acceptConnection(socket: Duplex): void;
}

function parseTarget(target: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    // Reported below with the fix.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UserError('invalid_target', `--target must be an http:// or https:// origin, like http://localhost:3000 (got "${target}").`, {
      exitCode: 2,
    });
  }
  return url;
}

function normalizeRoute(route: string): string {
  const withSlash = route.startsWith('/') ? route : `/${route}`;
  return withSlash.length > 1 && withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

function pathnameOf(url: string): string {
  if (url.startsWith('/')) {
    const q = url.indexOf('?');
    return q < 0 ? url : url.slice(0, q);
  }
  try {
    // Absolute-form request targets (`GET http://host/path`).
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Host names that reach this machine's loopback listener. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0', '[::]']);

/** Whether the target names this proxy: a loopback host on the proxy's own port. */
function isThisProxy(target: URL, port: number): boolean {
  const targetPort = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const hostname = target.hostname.toLowerCase();
  return targetPort === port && (LOCAL_HOSTS.has(hostname) || hostname.startsWith('127.') || hostname.endsWith('.localhost'));
}

export async function startRecordingProxy(
  options: RecordingProxyOptions,
  startOptions: { signal?: AbortSignal } = {},
): Promise<RecordingProxy> {
  if (startOptions.signal?.aborted) throw new MedianDevError('aborted', 'Starting the proxy was cancelled.');
  const limits: RecordingProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const host = options.host ?? '127.0.0.1';
  const route = normalizeRoute(options.route);
  const routeWithSlash = `${route}/`;
  const instanceId = options.instanceId ?? randomUUID();
  const replayKey = options.replayKey ?? newReplayKey();
  let targetUrl = parseTarget(options.target);
  let targetLabel = options.target;
  let secret = options.secret;

  const settings: RecordSettings = {
    limits: { timeoutMs: limits.timeoutMs, maxAnswerBytes: limits.maxAnswerBytes, agentReadChars: MEDIAN_CALL_LIMITS.agentReadChars },
    recordBodyBytes: limits.recordBodyBytes,
    endpointUrl: new URL(route, targetUrl).href,
  };

  const inFlight = new InFlightList<CallExchange>();
  // One sweep gives up on silent dev servers, instead of a timer per request; only while requests are in flight.
  const sweep = createWorkInterval(
    Math.max(10, Math.min(1_000, Math.floor(limits.upstreamGiveUpMs / 4))),
    () => inFlight.size > 0,
    () => {
      const at = now();
      inFlight.forEach((exchange) => exchange.checkSilence(at));
    },
  );
  const upgraded = new Set<Duplex>();
  const forwarder = createForwarder();
  const batch = createRecordBatch({
    settings,
    logger,
    onRecord: options.onRecord,
    ...(options.onRequestStarted ? { onRequestStarted: options.onRequestStarted } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });

  const ctx: ExchangeContext = {
    now,
    recordBodyBytes: limits.recordBodyBytes,
    upstreamGiveUpMs: limits.upstreamGiveUpMs,
    targetLabel: () => targetLabel,
    devServerPhase: options.devServerPhase ?? (() => null),
    targetAnswered: options.onTargetAnswered ?? (() => undefined),
    callerLeft(exchange) {
      logger.debug('The caller hung up before its answer was complete.', { id: exchange.id, path: exchange.path });
    },
    holdsAnswers: options.holdAnswersUntilRecorded !== false,
    started: (exchange) => batch.started(exchange),
    finished(exchange) {
      inFlight.delete(exchange);
      batch.finished(exchange);
    },
  };

  // A socket that already carried a request belongs to that exchange: it records what happened.
  const carriedRequest = new WeakSet<Duplex>();
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    carriedRequest.add(req.socket);
    const path = req.url ?? '/';
    const pathname = pathnameOf(path);
    if (pathname === HEALTH_PATH) {
      sendHealth(req.method, res, instanceId);
      return;
    }
    const received = req.headers;
    const replayHeader = received[REPLAY_OF_HEADER];
    if (replayHeader !== undefined) delete received[REPLAY_OF_HEADER];
    // The dev server gets a copy without hop-by-hop headers (nor our replay
    // header); the record keeps what the route saw, credentials masked.
    req.headers = forwardableRequestHeaders(received);
    addVia(req.headers, instanceId);
    const exchange = new CallExchange(ctx, {
      req,
      res,
      path,
      isRoute: pathname === route || pathname === routeWithSlash,
      secret,
      headers: maskCredentials(received),
      // Stripped whatever it says; a replay only when our own replay key marked it (never from the public side).
      replayOf: recordIdOfReplayMarker(replayHeader, replayKey),
    });
    inFlight.add(exchange);
    sweep.start();
    if (forwarder.isOwnConnection(req.socket) || hasPassedThrough(received.via, instanceId)) {
      if (!isLoopSaid) logger.warn(PROXY_MESSAGES.proxyLoop(targetLabel));
      isLoopSaid = true;
      exchange.loopDetected();
      return;
    }
    if (ctx.devServerPhase() === 'finding') {
      exchange.devServerNotFound();
      return;
    }
    forwarder.forward(req, targetUrl, exchange);
  };
  let isLoopSaid = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    forwarder.upgrade(req, socket, head, targetUrl, (error) => {
      logger.debug('A WebSocket to the dev server failed.', { path: req.url, error: error.message });
    });
  };

  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks those two timeouts on this beat (default 30 s, too coarse for short limits).
      connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(headersTimeout / 4))),
    },
    onRequest,
  );
  server.on('upgrade', onUpgrade);
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (carriedRequest.has(socket)) {
      // What Node does without a listener; the exchange records the outcome.
      const net = socket as Duplex & { bytesWritten?: number };
      if (socket.writable && (net.bytesWritten ?? 0) === 0) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    refuseClientError(error, socket, {
      now,
      onRecord(record) {
        Promise.resolve(options.onRecord(record)).catch((failure: unknown) =>
          logger.warn('Recording a refused request failed.', { error: String(failure) }),
        );
      },
    });
  });
  let listenSettled = false;
  server.once('listening', () => (listenSettled = true));
  server.once('error', () => (listenSettled = true));


  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => {
        const stop = (): void => {
          server.close(() => resolve());
        };
        if (server.listening) stop();
        else if (listenSettled) resolve();
        else {
          // Cancelled while listen() was under way: stop once it settles.
          server.once('listening', stop);
          server.once('error', () => resolve());
        }
      });
      sweep.stop();
      for (const exchange of inFlight.toArray()) exchange.abandon();
      inFlight.clear();
      // Deliver what is queued now rather than on a turn that may come after close.
      batch.flushNow();
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
      upgraded.clear();
      forwarder.close();
      await stopped;
      await batch.settled();
    })();
    return closing;
  };

  await listen(server, options.port ?? 0, host, startOptions.signal).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  if (isThisProxy(targetUrl, port)) {
    await close();
    throw new UserError('target_is_proxy', `--target ${targetLabel} is this proxy itself (port ${port}): every request would come back here forever.`, {
      hint: 'Point --target at your dev server (e.g. http://localhost:3000), or pass another --port to the proxy.',
    });
  }
  logger.debug('Recording proxy listening.', { port, target: targetLabel, route });

  return {
    url: `http://${urlHost}:${port}`,
    port,
    close,
    setSecret(next) {
      secret = next;
    },
    acceptConnection(socket) {
      if (closing) {
        socket.destroy();
        return;
      }
      server.emit('connection', socket);
    },
    setTarget(next) {
      targetUrl = parseTarget(next);
      targetLabel = next;
      settings.endpointUrl = new URL(route, targetUrl).href;
    },
  };
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      cleanup();
      reject(new MedianDevError('aborted', 'Starting the proxy was cancelled.'));
    };
    const onError = (error: NodeJS.ErrnoException): void => {
      cleanup();
      if (error.code === 'EADDRINUSE') {
        reject(
          new UserError('proxy_port_in_use', `Port ${port} on ${host} is taken, so the proxy cannot listen there.`, {
            hint: 'Another median-dev may be running (`median-dev watch` attaches to it); stop what uses the port, or pass --port 0 for any free port.',
            cause: error,
          }),
        );
      } else {
        reject(new MedianDevError('proxy_listen_failed', `median-dev: the proxy could not listen on ${host}:${port} (${error.code ?? error.message}).`, { cause: error }));
      }
    };
    const onListening = (): void => {
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      server.off('error', onError);
      server.off('listening', onListening);
      signal?.removeEventListener('abort', onAbort);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    signal?.addEventListener('abort', onAbort, { once: true });
    server.listen(port, host);
  });
}
