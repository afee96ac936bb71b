/**
 * Our own HTTP/1.1 client to the dev server: kept connections, one call at a
 * time on each, the request written as Node's `http.request` writes it and the
 * answer framed by the strict parser (answer-parser.ts). It replaces Node's
 * second client stack (ClientRequest, IncomingMessage, the Agent's
 * bookkeeping) on the forwarding path: measured ~100 µs of CPU per call at
 * 250 calls/s through the tunnel (BENCHMARKS.md).
 *
 * The request goes out as `http.request` sent it (request-head.ts; its body
 * as it comes, re-chunked when it came chunked: upstream-call.ts).
 *
 * A connection is used again only after a whole answer that allowed it
 * (HTTP/1.1, no `Connection: close`, a known length, nothing after its end)
 * and a whole request; anything else closes it. Idle connections close after
 * `idleSocketMs`, and bytes arriving on an idle one close it (they answer
 * nothing we asked). At most `maxSockets` connections at once; more calls
 * wait in line, in order.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { AnswerFramingError, AnswerParser, type AnswerEvents, type AnswerHead } from './answer-parser.js';
import { socketConnections, hangUp, UpstreamCall, type UpstreamHandlers, type UpstreamTarget } from './upstream-call.js';

export type { UpstreamAnswer, UpstreamHandlers, UpstreamTarget } from './upstream-call.js';
export { releaseRequest } from './upstream-call.js';
export { requestHead } from './request-head.js';

export interface UpstreamPoolOptions {
  idleSocketMs: number;
  maxSockets: number;
  /** Each new connection, for the proxy's loop check. */
  onConnection(socket: Socket): void;
}

/** The pool's own connection of a socket (only the pool puts sockets in socketConnections). */
const connectionOf = (socket: Socket): UpstreamConnection | undefined => socketConnections.get(socket) as UpstreamConnection | undefined;

function onSocketData(this: Socket, chunk: Buffer): void {
  connectionOf(this)?.data(chunk);
}
function onSocketEnd(this: Socket): void {
  connectionOf(this)?.ended();
}
function onSocketError(this: Socket, error: Error): void {
  connectionOf(this)?.broken(error);
}
function onSocketClose(this: Socket): void {
  connectionOf(this)?.ended();
}
function onSocketTimeout(this: Socket): void {
  const connection = connectionOf(this);
  if (connection?.call === undefined) this.destroy();
}
function uncork(socket: Socket): void {
  socket.uncork();
}

class UpstreamConnection implements AnswerEvents {
  call: UpstreamCall | undefined = undefined;
  private readonly parser = new AnswerParser(this);
  private answerEnded = false;
  private keepAlive = false;
  closed = false;

  constructor(
    private readonly pool: UpstreamPool,
    readonly socket: Socket,
    readonly target: UpstreamTarget,
  ) {
    socketConnections.set(socket, this);
    socket.on('data', onSocketData);
    socket.on('end', onSocketEnd);
    socket.on('error', onSocketError);
    socket.on('close', onSocketClose);
    socket.on('timeout', onSocketTimeout);
  }

  /** Puts `call` on this connection: its request goes out now. */
  take(call: UpstreamCall): void {
    this.call = call;
    call.connection = this;
    this.answerEnded = false;
    this.parser.begin(call.req.method === 'HEAD');
    const socket = this.socket;
    socket.cork();
    socket.write(call.head);
    const waiting = call.waiting;
    call.waiting = undefined;
    if (waiting) for (const chunk of waiting) call.write(chunk);
    // The body's first bytes usually come in this same turn: head and body leave in one write.
    process.nextTick(uncork, socket);
    if (!call.hasBody || call.requestEnded) call.endRequest();
  }

  data(chunk: Buffer): void {
    const call = this.call;
    if (!call) {
      // Nothing was asked: bytes on an idle connection answer nothing; it is not used again.
      this.socket.destroy();
      return;
    }
    try {
      this.parser.execute(chunk);
    } catch (error) {
      this.socket.destroy();
      call.fail(error instanceof AnswerFramingError ? error : hangUp());
      return;
    }
    if (this.answerEnded && this.parser.excess) this.keepAlive = false;
    if (this.answerEnded && call.requestSent) this.done();
  }

  answerHead(head: AnswerHead): void {
    const call = this.call;
    if (!call) return;
    call.statusCode = head.statusCode;
    call.statusMessage = head.statusMessage;
    call.rawHeaders = head.rawHeaders;
    call.headers = head.headers;
    call.handlers.onResponse(call);
  }

  answerBody(chunk: Buffer): void {
    this.call?.handlers.onAnswerData?.(chunk);
  }

  answerEnd(keepAlive: boolean): void {
    this.answerEnded = true;
    this.keepAlive = keepAlive;
    const call = this.call;
    if (!call) return;
    call.answered = true;
    call.handlers.onAnswerEnd?.();
  }

  /** Both the request and the answer are whole: the connection goes back, or away. */
  done(): void {
    const call = this.call;
    if (!call || !this.answerEnded || !call.requestSent) return;
    call.gone = true;
    call.release();
    call.connection = undefined;
    this.call = undefined;
    if (this.keepAlive && !this.parser.excess && !this.closed) this.pool.idle(this);
    else this.socket.destroy();
  }

  /** The connection's end (or close): a close-delimited answer ends there, any other is cut short. */
  ended(): void {
    const first = !this.closed;
    this.closed = true;
    const call = this.call;
    if (call) {
      try {
        this.parser.eof();
      } catch (error) {
        call.fail(error instanceof AnswerFramingError && error.code !== 'ECONNRESET' ? error : hangUp());
      }
      if (this.call) {
        // Ended at its close: the request may still be streaming; nothing more can go.
        call.requestSent = true;
        this.done();
      }
    }
    if (first) this.socket.destroy();
    this.pool.gone(this);
  }

  broken(error: Error): void {
    this.closed = true;
    this.call?.fail(error);
    this.socket.destroy();
  }
}

export class UpstreamPool {
  private readonly idleByTarget = new Map<string, UpstreamConnection[]>();
  private readonly all = new Set<UpstreamConnection>();
  private readonly queue: UpstreamCall[] = [];
  private closed = false;

  constructor(private readonly options: UpstreamPoolOptions) {}

  /** Sends `req` to `target`; `head` is the request's head as written (requestHead). */
  forward(req: IncomingMessage, target: UpstreamTarget, head: Buffer, handlers: UpstreamHandlers): void {
    const call = new UpstreamCall(this, req, handlers, target, head);
    handlers.onUpstreamRequest(call);
    if (this.closed) {
      call.fail(hangUp());
      return;
    }
    const idle = this.idleByTarget.get(target.key);
    let connection = idle?.pop();
    while (connection?.closed) connection = idle?.pop();
    if (connection) {
      connection.socket.ref();
      connection.take(call);
    } else if (this.all.size < this.options.maxSockets) this.open(target).take(call);
    else this.queue.push(call);
  }

  private open(target: UpstreamTarget): UpstreamConnection {
    const socket = target.isHttps
      ? tlsConnect({ host: target.hostname, port: target.port, rejectUnauthorized: false, ...(isIP(target.hostname) === 0 ? { servername: target.hostname } : {}) })
      : netConnect({ host: target.hostname, port: target.port });
    socket.setNoDelay(true);
    socket.setTimeout(this.options.idleSocketMs);
    const connection = new UpstreamConnection(this, socket, target);
    this.all.add(connection);
    this.options.onConnection(socket);
    return connection;
  }

  /** A connection free for the next call: the first in line, or the idle list. */
  idle(connection: UpstreamConnection): void {
    const next = this.nextFor(connection.target.key);
    if (next) {
      connection.take(next);
      return;
    }
    let idle = this.idleByTarget.get(connection.target.key);
    if (!idle) this.idleByTarget.set(connection.target.key, (idle = []));
    idle.push(connection);
    // As Node's Agent: an idle kept connection does not keep the process alive.
    connection.socket.unref();
  }

  private nextFor(key: string): UpstreamCall | undefined {
    const at = this.queue.findIndex((call) => call.target.key === key);
    return at < 0 ? undefined : this.queue.splice(at, 1)[0];
  }

  /** A connection closed: it leaves every list, and the first call in line gets a new one. */
  gone(connection: UpstreamConnection): void {
    if (!this.all.delete(connection)) return;
    const idle = this.idleByTarget.get(connection.target.key);
    const at = idle?.indexOf(connection) ?? -1;
    if (at >= 0) idle!.splice(at, 1);
    const next = this.queue.shift();
    if (next && !this.closed) this.open(next.target).take(next);
  }

  dequeue(call: UpstreamCall): void {
    const at = this.queue.indexOf(call);
    if (at >= 0) this.queue.splice(at, 1);
  }

  /** Every connection closed; calls in line fail with a hang-up. */
  close(): void {
    this.closed = true;
    for (const call of this.queue.splice(0)) call.fail(hangUp());
    for (const connection of [...this.all]) connection.socket.destroy();
    this.idleByTarget.clear();
  }
}
