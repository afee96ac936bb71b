/**
 * One call on its way to the dev server (upstream-pool.ts holds the
 * connections): its request's body fed to the connection it was given (or
 * kept until it has one), re-chunked when it came chunked, with
 * back-pressure both ways; and what the exchange holds of it: destroy, pause
 * and resume, and the answer's head once it came.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** The dev server's answer as far as its head: the fields of an IncomingMessage the proxy reads, and back-pressure. */
export interface UpstreamAnswer {
  readonly statusCode?: number | undefined;
  readonly statusMessage?: string | undefined;
  readonly rawHeaders: string[];
  readonly headers: IncomingHttpHeaders;
  pause(): unknown;
  resume(): unknown;
}

/** What forward() tells its caller, in order: the call exists, the answer's head, its bytes, its end; or an error. */
export interface UpstreamHandlers {
  onUpstreamRequest(upstream: UpstreamCall): void;
  onResponse(answer: UpstreamAnswer): void;
  onAnswerData?(chunk: Buffer): void;
  onAnswerEnd?(): void;
  /** No (complete) answer: refused, reset, a framing the parser refused. May come after onResponse. */
  onError(error: Error): void;
}

/** One target's address, worked out once per target. */
export interface UpstreamTarget {
  key: string;
  hostname: string;
  port: number;
  isHttps: boolean;
  /** The `Host` header when the request has none (as Node builds it). */
  hostHeader: string;
}

/** The connection a call is on, as the call sees it. */
export interface CallConnection {
  readonly socket: Socket;
  call: UpstreamCall | undefined;
  done(): void;
}

/** Where a call without a connection waits. */
export interface CallQueue {
  dequeue(call: UpstreamCall): void;
}

const CHUNKED = /(?:^|\W)chunked(?:$|\W)/i;
/**
 * The connection a socket belongs to (set by upstream-pool.ts), and the call a
 * request feeds. WeakMaps, not properties added to Node's sockets and
 * requests: an added property gives them a map of their own, which dies at a
 * full GC once no such object is left (the daemon idle a while), and every
 * optimised function that had seen it is thrown away at once (call-exchange.ts).
 */
export const socketConnections = new WeakMap<Socket, CallConnection>();
const requestCalls = new WeakMap<IncomingMessage, UpstreamCall>();
const FINAL_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');

/** What a connection lost under a call is reported as (Node's own words for it). */
export function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/** One call on its way to the dev server; what the exchange holds (destroy, and pause/resume for back-pressure), and its answer's head. */
export class UpstreamCall implements UpstreamAnswer {
  statusCode: number | undefined = undefined;
  statusMessage: string | undefined = undefined;
  rawHeaders: string[] = [];
  headers: IncomingHttpHeaders = {};
  connection: CallConnection | undefined = undefined;
  /** Body bytes that came before the call had a connection. */
  waiting: Buffer[] | undefined = undefined;
  requestEnded = false;
  requestSent = false;
  answered = false;
  gone = false;
  draining = false;
  readonly isChunked: boolean;
  readonly hasBody: boolean;
  constructor(
    readonly pool: CallQueue,
    readonly req: IncomingMessage,
    readonly handlers: UpstreamHandlers,
    readonly target: UpstreamTarget,
    readonly head: Buffer,
  ) {
    const headers = req.headers;
    this.isChunked = headers['content-length'] === undefined && headers['transfer-encoding'] !== undefined && CHUNKED.test(String(headers['transfer-encoding']));
    this.hasBody = this.isChunked || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    requestCalls.set(req, this);
    req.on('error', onRequestError);
    if (this.hasBody) {
      req.on('data', onRequestData);
      req.on('end', onRequestEnd);
    }
  }

  /** Ends the call now; the caller says why itself (no event follows). */
  destroy(): void {
    if (this.gone) return;
    this.gone = true;
    this.release();
    const connection = this.connection;
    this.connection = undefined;
    if (connection) {
      connection.call = undefined;
      connection.socket.destroy();
    } else this.pool.dequeue(this);
  }

  pause(): void {
    this.connection?.socket.pause();
  }

  resume(): void {
    this.connection?.socket.resume();
  }

  /** The request's own listeners go. */
  release(): void {
    const req = this.req;
    req.off('data', onRequestData);
    req.off('end', onRequestEnd);
    req.off('error', onRequestError);
    requestCalls.delete(req);
  }

  /** Fails the call once, with `error`. */
  fail(error: Error): void {
    if (this.gone) return;
    this.gone = true;
    this.release();
    const connection = this.connection;
    this.connection = undefined;
    if (connection) connection.call = undefined;
    this.handlers.onError(error);
  }

  write(chunk: Buffer): void {
    if (this.gone) return;
    const socket = this.connection?.socket;
    if (!socket) {
      (this.waiting ??= []).push(chunk);
      return;
    }
    if (chunk.length === 0) return;
    let flowing: boolean;
    if (this.isChunked) {
      socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
      socket.write(chunk);
      flowing = socket.write(CRLF);
    } else flowing = socket.write(chunk);
    if (!flowing && !this.draining) {
      this.draining = true;
      this.req.pause();
      socket.once('drain', onSocketDrain);
    }
  }

  endRequest(): void {
    this.requestEnded = true;
    const connection = this.connection;
    if (!connection) return;
    if (this.isChunked) connection.socket.write(FINAL_CHUNK);
    this.requestSent = true;
    this.release();
    if (this.answered) connection.done();
  }
}

function onRequestData(this: IncomingMessage, chunk: Buffer): void {
  requestCalls.get(this)?.write(chunk);
}
function onRequestEnd(this: IncomingMessage): void {
  requestCalls.get(this)?.endRequest();
}
/** As http-proxy-3 did: the caller gone with a reset ends the call to the dev server too. */
function onRequestError(this: IncomingMessage, error: Error & { code?: string }): void {
  const call = requestCalls.get(this);
  if (!call) return;
  const handlers = call.handlers;
  if (this.socket.destroyed && error.code === 'ECONNRESET') {
    call.destroy();
    handlers.onError(error);
    return;
  }
  handlers.onError(error);
}
function onSocketDrain(this: Socket): void {
  const call = socketConnections.get(this)?.call;
  if (!call) return;
  call.draining = false;
  call.req.resume();
}
/** The call of `req` no longer feeds it: its listeners go and a late event finds no call (the connection finishes on its own). */
export function releaseRequest(req: IncomingMessage): void {
  requestCalls.get(req)?.release();
}

