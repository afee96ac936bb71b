import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MedianDevError, errorCode, silentLogger, type Logger } from '../shared/index.js';
import { parseBoundedJson } from '../shared/safe-json.js';
import type { InspectorStatus, LiveMessage } from '../events/inspector-api.js';
import { createCallIndex } from './call-index.js';
import { emptyTimeline, reduceTimeline } from './heal-timeline.js';
import { createLiveChannel } from './live-channel.js';
import {
  SECURITY_HEADERS,
  checkHost,
  checkSameOriginRead,
  checkSameOriginWrite,
  noSession,
  sessionOf,
  type Refusal,
} from './request-guard.js';
import { createApiRoutes, type ApiAnswer } from './api-routes.js';
import type { InspectorServerOptions } from './inspector-options.js';
import { createSessionStore } from './session-store.js';
import { defaultAssetDir, loadAssets } from './static-assets.js';

export type { InspectorServerOptions } from './inspector-options.js';

export const DEFAULT_INSPECTOR_PORT = 4142;


export interface InspectorServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** A URL with a fresh one-time token: opening it gives that browser a session. */
  newLink(): string;
  /** Resolves once the list holds the stored records (reading it starts when a browser first comes, or here). */
  readonly loaded: Promise<void>;
  /** Ends live streams and stops listening. Idempotent. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Request headers a browser may send: above Node's 16 KiB default, since every
 * page on 127.0.0.1 can set cookies that go to every port, and a page that
 * set enough (a browser keeps up to 180 of 4 KiB for a host) would otherwise
 * lock the inspector's own navigations out with 431.
 */
const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * The browser inspector's server: the built page from memory, a JSON API and
 * a live channel over the daemon's own data, on 127.0.0.1 only. Every request
 * passes the gate in request-guard.ts first.
 */
export async function startInspectorServer(options: InspectorServerOptions): Promise<InspectorServer> {
  const logger = options.logger ?? silentLogger;
  const assets = await loadAssets(options.assetDir ?? defaultAssetDir());
  const sessions = createSessionStore();
  const live = createLiveChannel(SECURITY_HEADERS);
  const index = createCallIndex({ matcherFor: options.matcherFor, scanRecords: options.scanRecords });
  let timeline = emptyTimeline();
  let recording: InspectorStatus['recording'] = 'ok';

  const status = (): InspectorStatus => {
    const { records: _records, ...daemon } = options.snapshot();
    return { daemon, recording, timeline: timeline.entries };
  };
  const unsubscribe = options.events.on((event) => {
    if (event.event === 'call') {
      // A row only for an index that keeps it or a browser that listens: a daemon nobody inspects builds none (250 calls a second).
      if (event.record && (index.isKeeping() || live.clientCount() > 0)) live.broadcast({ type: 'call', row: index.add(event.record) });
      return;
    }
    timeline = reduceTimeline(timeline, event);
    if (event.event === 'recording') recording = event.state;
    if (event.event === 'output' || event.event === 'log' || live.clientCount() === 0) return;
    live.broadcast({ type: 'status', status: status() });
  });
  // The list is read when a browser first asks for it (or opens a link), not at start: a daemon nobody inspects holds no rows.
  let loading: Promise<void> | undefined;
  const loaded = (): Promise<void> =>
    (loading ??= index.load().catch((error: unknown) => {
      logger.warn('inspector: could not read the recorded calls', { error: String(error) });
    }));

  const api = createApiRoutes({ ...options, index, status });

  const server: Server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('inspector: request failed', { error: String(error) });
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal_error', message: 'The inspector could not answer this request.' } });
      else res.destroy();
    });
  });
  // A WebSocket (or any other) upgrade is not something the inspector speaks.
  server.on('upgrade', (_req, socket) => socket.destroy());
  server.on('clientError', (_error, socket) => socket.destroy());

  let port = 0;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://inspector.invalid');
    const hostRefusal = checkHost(req.headers, port);
    if (hostRefusal) return refuse(res, hostRefusal);

    if (url.pathname.startsWith('/api/')) {
      const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
      const originRefusal = isWrite ? checkSameOriginWrite(req.headers) : checkSameOriginRead(req.headers);
      if (originRefusal) return refuse(res, originRefusal);
      if (url.pathname === '/api/session' && req.method === 'POST') return exchangeToken(req, res);
      if (!sessions.isSession(sessionOf(req.headers))) return refuse(res, noSession());
      const listed = loaded();
      if (url.pathname === '/api/live') {
        if (req.method !== 'POST') return sendJson(res, 405, errorBody('method_not_allowed', 'The live channel is a POST.'));
        req.resume();
        await listed;
        const hello: LiveMessage = { type: 'hello', status: status(), recorded: index.size() };
        return live.open(res, hello);
      }
      const answer = await (async () => {
        const body = isWrite ? await readJsonBody(req) : undefined;
        return api.answer(req.method ?? 'GET', url, body);
      })().catch(errorAnswer);
      return sendAnswer(res, answer);
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, errorBody('method_not_allowed', 'Use GET.'));
    // The one-time link (`/session?token=…`) opens the page itself, which spends the token (exchangeToken).
    const isPage = url.pathname === '/' || url.pathname === '/index.html' || url.pathname === '/session';
    const asset = assets.get(isPage ? '/index.html' : url.pathname);
    if (!asset) {
      if (isPage) {
        res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
        res.end('The inspector page was not built. Run `npm run build` in the median-dev folder.\n');
        return;
      }
      return sendJson(res, 404, errorBody('not_found', `Nothing at ${url.pathname}.`));
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.contentType, 'content-length': asset.body.byteLength });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  /**
   * `POST /api/session {token}` from the page (own Origin, checked): spends the
   * one-time token and answers the session id in the body, which the page
   * keeps in its sessionStorage (per origin, so no other port reads it) and
   * sends back in a header.
   */
  async function exchangeToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req).catch(() => undefined);
    const token = typeof body === 'object' && body !== null && typeof (body as { token?: unknown }).token === 'string' ? (body as { token: string }).token : '';
    const session = sessions.exchange(token);
    if (session === undefined) {
      return sendJson(res, 401, errorBody('inspector_link_spent', 'This inspector link was already used, or is not one median-dev made.', 'Run `median-dev inspect` for a new one.'));
    }
    sendJson(res, 200, { session });
    void loaded(); // the page asks for its first rows next
  }

  port = await listen(server, options.port ?? DEFAULT_INSPECTOR_PORT);
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get loaded() {
      return loaded();
    },
    newLink: () => `${url}/session?token=${sessions.issueToken()}`,
    close() {
      closing ??= (async () => {
        unsubscribe();
        live.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}

async function listen(server: Server, port: number): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      });
    });
  try {
    return await tryPort(port);
  } catch (error) {
    if (port === 0 || errorCode(error) !== 'EADDRINUSE') {
      throw new MedianDevError('inspector_listen_failed', `The inspector could not listen on 127.0.0.1:${port}: ${String(error)}`, { cause: error });
    }
    return tryPort(0);
  }
}

function errorBody(code: string, message: string, hint?: string) {
  return { error: { code, message, ...(hint ? { hint } : {}) } };
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  sendJson(res, refusal.status, errorBody(refusal.code, refusal.message));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendAnswer(res: ServerResponse, answer: ApiAnswer): void {
  if (answer.download) {
    const text = JSON.stringify(answer.body, null, 2);
    res.writeHead(answer.status, {
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="${answer.download}"`,
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  sendJson(res, answer.status, answer.body);
}

const STATUS_OF_CODE: Record<string, number> = {
  call_not_found: 404,
  call_ambiguous: 409,
  replay_needs_confirmation: 409,
  replay_unsigned_original: 409,
  curl_not_route: 409,
  missing_key: 409,
  route_unreachable: 502,
  invalid_json_body: 400,
  body_too_large: 413,
  not_found: 404,
};

function errorAnswer(error: unknown): ApiAnswer {
  if (error instanceof MedianDevError) {
    const status = STATUS_OF_CODE[error.code] ?? (error.name === 'UserError' ? 400 : 500);
    return { status, body: errorBody(error.code, error.message, error.hint) };
  }
  return { status: 500, body: errorBody('internal_error', 'The inspector could not answer this request.') };
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw new MedianDevError('body_too_large', 'The request body is larger than 1 MiB.');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    // Bounded: a replay's input nested past what any reader walks would overflow the stack when it is signed.
    return parseBoundedJson(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new MedianDevError('invalid_json_body', 'The request body is not JSON (or nests deeper than 256 levels).');
  }
}
