import { request, type ClientRequest, type IncomingMessage, type RequestOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { WAIT_SIGNAL_OPTION, type ClientSocketPool } from './client-socket-pool.js';

export interface ForwardOptions {
  /** How long a request may wait for a free tunnel socket before the 503. */
  queueTimeoutMs: number;
  publicProtocol: 'https' | 'http';
  logger: Logger;
  /** The wait for a free socket runs on it. */
  clock: Clock;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer']);

/** Sends a JSON answer the way the tunnel server answers on its own behalf. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Pipes one public request through a tunnel socket of `pool` and its answer back. */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, pool: ClientSocketPool, options: ForwardOptions): void {
  let timedOut = false;
  const upstream = openUpstream(req, pool, options, false, () => {
    timedOut = true;
    if (!res.headersSent) sendJson(res, 503, { error: `tunnel "${pool.id}" has no free connection` });
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.rawHeaders));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', (error) => {
    if (timedOut) return;
    options.logger.debug('tunnel request failed', { id: pool.id, error: error.message });
    if (res.headersSent) res.destroy();
    else sendJson(res, 502, { error: `tunnel "${pool.id}" did not answer: ${error.message}` });
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.on('error', () => upstream.destroy());
  req.pipe(upstream);
}

/** Passes an upgrade (WebSocket) through a tunnel socket, then pipes raw bytes both ways. */
export function forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, pool: ClientSocketPool, options: ForwardOptions): void {
  let answered = false;
  const fail = (status: 502 | 503, reason: string): void => {
    if (answered) return;
    answered = true;
    const body = JSON.stringify({ error: `tunnel "${pool.id}" could not pass the upgrade: ${reason}` });
    const answerHead = rawResponseHead(status, status === 503 ? 'Service Unavailable' : 'Bad Gateway', [
      'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'Connection', 'close',
    ]);
    socket.end(answerHead + body);
  };
  const upstream = openUpstream(req, pool, options, true, () => fail(503, 'no free connection'));
  socket.on('error', () => upstream.destroy());
  upstream.on('upgrade', (answer, tunnelSocket, answerHead) => {
    answered = true;
    socket.write(rawResponseHead(answer.statusCode ?? 101, answer.statusMessage, answer.rawHeaders));
    if (answerHead.length > 0) socket.write(answerHead);
    if (head.length > 0) tunnelSocket.write(head);
    tunnelSocket.on('error', () => socket.destroy());
    socket.on('close', () => tunnelSocket.destroy());
    tunnelSocket.on('close', () => socket.destroy());
    tunnelSocket.pipe(socket).pipe(tunnelSocket);
  });
  upstream.on('response', (answer) => {
    // The app declined the upgrade: relay its answer and close.
    answered = true;
    const headers = responseHeaders(answer.rawHeaders).concat(['Connection', 'close']);
    socket.write(rawResponseHead(answer.statusCode ?? 502, answer.statusMessage, headers));
    answer.pipe(socket);
  });
  upstream.on('error', (error) => fail(502, error.message));
  upstream.end();
}

/** The request to the client's app through the pool; `onTimeout` when no tunnel socket came in time. */
function openUpstream(
  req: IncomingMessage,
  pool: ClientSocketPool,
  options: ForwardOptions,
  isUpgrade: boolean,
  onTimeout: () => void,
): ClientRequest {
  const waiting = new AbortController();
  const requestOptions: RequestOptions & Record<string, unknown> = {
    host: '127.0.0.1',
    port: pool.port,
    method: req.method,
    path: req.url,
    headers: forwardedHeaders(req, { isUpgrade, publicProtocol: options.publicProtocol }),
    agent: pool.agent,
    setHost: false,
    [WAIT_SIGNAL_OPTION]: waiting.signal,
  };
  const upstream = request(requestOptions);
  const timer = options.clock.setTimer(() => {
    onTimeout();
    waiting.abort();
    upstream.destroy();
  }, options.queueTimeoutMs);
  upstream.once('socket', () => timer.cancel());
  upstream.once('close', () => timer.cancel());
  return upstream;
}

function forwardedHeaders(req: IncomingMessage, options: { isUpgrade: boolean; publicProtocol: string }): string[] {
  const out: string[] = [];
  let hasProto = false;
  let hasFor = false;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (!options.isUpgrade && HOP_BY_HOP.has(lower)) continue;
    if (lower === 'x-forwarded-proto') hasProto = true;
    if (lower === 'x-forwarded-for') hasFor = true;
    out.push(name, raw[i + 1] as string);
  }
  if (!hasProto) out.push('X-Forwarded-Proto', options.publicProtocol);
  if (!hasFor && req.socket.remoteAddress) out.push('X-Forwarded-For', req.socket.remoteAddress);
  return out;
}

function responseHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'transfer-encoding') continue;
    out.push(name, raw[i + 1] as string);
  }
  return out;
}

function rawResponseHead(status: number, message: string | undefined, headers: string[]): string {
  let head = `HTTP/1.1 ${status} ${message ?? ''}\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n`;
}
