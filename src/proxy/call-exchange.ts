// Over 300 lines: one call's exchange is one hot-path state machine (request, answer, hang-ups, limits, the
// record); its listeners are module functions on purpose (no closure per request), so it does not split well.
/**
 * One request through the proxy, from arrival to record. Two sides finish
 * independently: the request (its body read, classified and its signature
 * checked) and the answer (the dev server's answer relayed, or the failure
 * we reported). The record is built once both are done.
 *
 * Choices:
 * - The caller hanging up does not abort the request to the dev server: we
 *   keep reading its answer (to the upstream give-up limit) so a late answer
 *   is still recorded. The record then carries `error: client_closed`.
 * - No answer at all (refused, reset, gave up): the caller gets our 502/504
 *   and the record has `response: null`, the reason in `error`, and
 *   `verdict.kind` `not-answering` (what Median would see).
 * - Signature: checked only for requests to the route that carry one by
 *   protocol (POST calls and diagnostics, GET manifest reads) and only with a
 *   secret; a connect (GET with Bearer) is authenticated by the key, not
 *   signed: `unchecked`. A body cut at the recording limit is verified
 *   over the stream as it passed (`requestData`).
 *
 * Hot path: no closures per request. Stream events go to shared functions
 * that find their exchange through a symbol on the stream.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  SIGNATURE_HEADER,
  classifyRequest,
  newRecordId,
  verifySignature,
  createSignatureVerifier,
  type SignatureVerifier,
  type ClassifiedRequest,
  type RequestKind,
  type SignatureStatus,
} from '../median/index.js';
import { BodyCapture } from './body-capture.js';
import type { ExchangeFacts } from './build-call-record.js';
import { forwardableResponseHeaders } from './hop-by-hop.js';
import { releaseForwarded, type ForwardHandlers, type UpstreamAnswer, type UpstreamCall } from './http-proxy.js';
import type { InFlightLinks } from './in-flight-list.js';
import { DEV_SERVER_STARTING_RETRY_AFTER_S, PROXY_ERROR_CODES, PROXY_MESSAGES, failureReason, sendProxyError } from './proxy-answers.js';

/** What every exchange of one proxy shares. */
export interface ExchangeContext {
  now(): number;
  recordBodyBytes: number;
  upstreamGiveUpMs: number;
  /** The target as the user gave it, for messages. */
  targetLabel(): string;
  /**
   * The dev server command is starting: `finding` (where it listens is not
   * known yet) or `starting` (known, not listening yet); null otherwise.
   * Either way a caller gets 503 with Retry-After, not a 502.
   */
  devServerPhase(): 'finding' | 'starting' | null;
  /** The target answered (any HTTP status): it listens, whatever the last look at it saw. */
  targetAnswered(): void;
  /** Our caller hung up before its answer was complete. */
  callerLeft(exchange: CallExchange): void;
  /** The request body is in (or the request was cut off). */
  started(exchange: CallExchange): void;
  /** Both sides are done: time for the record. */
  finished(exchange: CallExchange): void;
  /** The answer's end waits until its record is handed to the recorder (see takeHeldAnswer). */
  holdsAnswers: boolean;
}

/**
 * Each request and answer stream's exchange, for the shared listeners below.
 * A WeakMap, not a property added to Node's objects: an added property gives
 * them a map (hidden class) of their own, which dies at the next full GC once
 * no stream has it (the daemon idle for a while), and every optimised function
 * that had seen it (Node's HTTP server and streams, our proxy) is thrown away
 * at once and compiled again under the next calls (V8's "weak objects"
 * deoptimisation).
 */
const exchanges = new WeakMap<object, CallExchange>();

function exchangeOf(stream: object): CallExchange | undefined {
  return exchanges.get(stream);
}

function untag(stream: object): void {
  exchanges.delete(stream);
}

// Shared stream listeners (`this` is the stream).
function onRequestData(this: IncomingMessage, chunk: Buffer): void {
  exchangeOf(this)?.requestData(chunk);
}
function onRequestEnd(this: IncomingMessage): void {
  exchangeOf(this)?.requestFinished();
}
function onCallerClose(this: ServerResponse): void {
  exchangeOf(this)?.callerClosed();
}
function onCallerDrain(this: ServerResponse): void {
  exchangeOf(this)?.resumeAnswer();
}

export class CallExchange implements ForwardHandlers, InFlightLinks<CallExchange> {
  // The proxy's list of exchanges under way (in-flight-list.ts).
  inFlightPrev: CallExchange | undefined = undefined;
  inFlightNext: CallExchange | undefined = undefined;
  isInFlight = false;
  readonly receivedAt: number;
  readonly method: string;
  readonly path: string;
  readonly requestBody: BodyCapture;
  kind: RequestKind = 'other';
  classified: ClassifiedRequest | undefined = undefined;
  signature: SignatureStatus = 'unchecked';
  /** Checks the signature over the whole streamed body, once it outgrew what is kept of it. */
  private bodyVerifier: SignatureVerifier | undefined = undefined;

  private recordId: string | undefined = undefined;
  private inspected = false;
  private readonly ctx: ExchangeContext;
  /** The caller's request and response; dropped once the exchange is recorded. */
  private req: IncomingMessage | undefined;
  private res: ServerResponse | undefined;
  private readonly isRoute: boolean;
  private readonly secret: Uint8Array | undefined;
  private readonly requestHeaders: Record<string, string | string[]>;
  private readonly replayOf: string | null;
  private status: number | null = null;
  private responseHeaders: IncomingHttpHeaders | null = null;
  private responseBody: BodyCapture | null = null;
  private responseComplete = false;
  /** The call to the dev server (the answer's back-pressure, and giving up on it). */
  private upstream: UpstreamCall | undefined = undefined;
  /** Last time the dev server said anything (for the give-up sweep). */
  private heardAt: number;
  private endedAt: number | null = null;
  private error: { code: string; message: string } | null = null;
  private failure: 'connection' | 'timeout' | undefined = undefined;
  private requestDone = false;
  private answerDone = false;
  private recorded = false;
  private callerGone = false;
  private gaveUp = false;
  private drainWatched = false;
  /** The answer's announced length (content-length), to know its last bytes when they come. */
  private answerLength: number | undefined = undefined;
  private answerSent = 0;
  /** The answer's last bytes, kept from the caller until the record is handed to the recorder. */
  private heldLast: Buffer | undefined = undefined;
  /** Lets the answer's end (and its held last bytes) go; set while the record is on its way. */
  private heldAnswer: (() => void) | undefined = undefined;

  constructor(
    ctx: ExchangeContext,
    init: {
      req: IncomingMessage;
      res: ServerResponse;
      path: string;
      isRoute: boolean;
      secret: Uint8Array | undefined;
      /** As received, credentials masked. */
      headers: Record<string, string | string[]>;
      /** The record a median-dev replay repeats, from its header. */
      replayOf: string | null;
    },
  ) {
    this.ctx = ctx;
    this.receivedAt = ctx.now();
    this.heardAt = this.receivedAt;
    this.req = init.req;
    this.res = init.res;
    this.method = init.req.method ?? 'GET';
    this.path = init.path;
    this.isRoute = init.isRoute;
    this.secret = init.secret;
    this.requestHeaders = init.headers;
    this.replayOf = init.replayOf;
    this.requestBody = new BodyCapture(ctx.recordBodyBytes);
    exchanges.set(init.req, this);
    exchanges.set(init.res, this);
    init.req.on('data', onRequestData);
    init.req.on('end', onRequestEnd);
    init.req.on('close', onRequestEnd);
    init.res.on('close', onCallerClose);
  }

  // ---- the request side -------------------------------------------------

  /**
   * The record id: `rec_` + the arrival time + random (newRecordId). Made on
   * first use, off the hot path.
   */
  get id(): string {
    return (this.recordId ??= newRecordId(this.receivedAt));
  }

  /**
   * A piece of the request body. The recording keeps its first bytes only;
   * when the body outgrows them, the signature check goes on over the stream
   * (the HMAC takes the bytes as they pass), so a large call still gets its
   * real outcome instead of `unchecked`.
   */
  requestData(chunk: Buffer): void {
    const body = this.requestBody;
    if (this.bodyVerifier === undefined && this.secret !== undefined && this.isRoute && body.size + chunk.length > this.ctx.recordBodyBytes) {
      this.bodyVerifier = createSignatureVerifier(this.requestHeaders[SIGNATURE_HEADER], this.secret, this.receivedAt);
      // Nothing was cut yet: what is kept is every byte so far.
      this.bodyVerifier.update(body.bytes());
    }
    this.bodyVerifier?.update(chunk);
    body.add(chunk);
  }

  /** The request body arrived (or the request was cut off). */
  requestFinished(): void {
    if (this.requestDone) return;
    this.requestDone = true;
    this.ctx.started(this);
    if (this.answerDone) this.record();
  }

  /**
   * Classifies the request and checks its signature, once. Runs after the
   * request is complete, from the proxy's batch (not on the hot path).
   */
  inspect(): void {
    if (this.inspected) return;
    this.inspected = true;
    if (!this.isRoute) return;
    const body = this.requestBody.bytes();
    this.classified = classifyRequest(this.method, this.requestHeaders, body);
    this.kind = this.classified.kind;
    this.signature = this.checkSignature(body);
  }

  private checkSignature(body: Buffer): SignatureStatus {
    if (this.secret === undefined) return 'unchecked';
    const signed = this.method === 'POST' || (this.method === 'GET' && this.kind !== 'connect');
    if (!signed) return 'unchecked';
    // Cut at the recording limit: the outcome over the whole stream (a body cut off on the way is not the signed one).
    if (this.requestBody.truncated) return this.bodyVerifier?.finish() ?? 'unchecked';
    return verifySignature(this.requestHeaders[SIGNATURE_HEADER], body, this.secret, this.receivedAt);
  }

  // ---- the answer side (ForwardHandlers) --------------------------------

  onUpstreamRequest(upstream: UpstreamCall): void {
    this.upstream = upstream;
  }

  /** Our caller can take more of the answer. */
  resumeAnswer(): void {
    this.upstream?.resume();
  }

  /** Called by the proxy's sweep: gives up on a dev server silent for too long. */
  checkSilence(now: number): void {
    if (this.answerDone || now - this.heardAt < this.ctx.upstreamGiveUpMs) return;
    this.gaveUp = true;
    if (this.upstream) this.upstream.destroy();
    // Still waiting for a connection (or destroy() reported nothing): settle now.
    if (!this.answerDone) this.onError(new Error('gave up'));
  }

  onResponse(response: UpstreamAnswer): void {
    if (this.answerDone) return;
    this.ctx.targetAnswered();
    this.heardAt = this.ctx.now();
    this.status = response.statusCode ?? 502;
    this.responseHeaders = response.headers;
    this.responseBody = new BodyCapture(this.ctx.recordBodyBytes);
    const length = Number(response.headers['content-length']);
    // A length-delimited answer is whole for the caller at its last byte, not at end(): that byte is held instead.
    if (this.ctx.holdsAnswers && Number.isSafeInteger(length) && length > 0 && response.headers['transfer-encoding'] === undefined) this.answerLength = length;
    const res = this.res;
    if (res && !this.callerGone && !res.headersSent) {
      const headers = forwardableResponseHeaders(response.rawHeaders, response.headers.connection);
      if (response.statusMessage) res.writeHead(this.status, response.statusMessage, headers);
      else res.writeHead(this.status, headers);
    }
  }

  onAnswerData(chunk: Buffer): void {
    // An answer that came after we had settled (gave up, answered for the dev server) is not the caller's.
    if (this.answerDone || this.responseBody === null) return;
    this.responseBody.add(chunk);
    this.heardAt = this.ctx.now();
    const res = this.res;
    if (!res || this.callerGone) return;
    if (this.answerLength !== undefined) {
      this.answerSent += chunk.length;
      if (this.answerSent >= this.answerLength && this.requestDone) {
        this.heldLast = this.heldLast ? Buffer.concat([this.heldLast, chunk]) : chunk;
        return;
      }
    }
    if (res.write(chunk)) return;
    this.upstream?.pause();
    if (!this.drainWatched) {
      this.drainWatched = true;
      res.on('drain', onCallerDrain);
    }
  }

  onAnswerEnd(): void {
    if (this.answerDone || this.status === null) return;
    this.responseComplete = true;
    const res = this.res;
    const last = this.heldLast;
    this.heldLast = undefined;
    if (res && !this.callerGone) {
      if (this.ctx.holdsAnswers && this.requestDone) {
        // Released by the record batch once the record is written: only then does the caller have it whole.
        this.heldAnswer = () => {
          if (!res.destroyed) res.end(last);
        };
      } else res.end(last);
    }
    this.settleAnswer();
  }

  /** The answer broke off after it started (reset, or we gave up on it). */
  answerBroken(error?: Error): void {
    if (this.answerDone || this.responseComplete) return;
    const target = this.ctx.targetLabel();
    if (this.gaveUp) {
      this.error = { code: PROXY_ERROR_CODES.targetTimeout, message: PROXY_MESSAGES.targetTimeout(target, this.ctx.upstreamGiveUpMs) };
    } else {
      const reason = error instanceof Error ? failureReason(error) : 'connection closed';
      this.error = { code: PROXY_ERROR_CODES.targetReset, message: PROXY_MESSAGES.targetReset(target, reason) };
    }
    // The caller got part of an answer; cutting the connection is the only honest end.
    if (!this.callerGone) this.res?.destroy();
    this.settleAnswer();
  }

  onError(error: Error): void {
    const { req, res } = this;
    if (this.answerDone || !req || !res) return;
    if (this.status !== null) {
      this.answerBroken(error);
      return;
    }
    const target = this.ctx.targetLabel();
    // The caller's own socket may die before its response reports 'close'.
    if (req.socket?.destroyed === true && !res.writableFinished) this.callerGone = true;
    if (this.gaveUp) {
      this.failure = 'timeout';
      const message = PROXY_MESSAGES.targetTimeout(target, this.ctx.upstreamGiveUpMs);
      this.error = { code: PROXY_ERROR_CODES.targetTimeout, message };
      sendProxyError(res, 504, PROXY_ERROR_CODES.targetTimeout, message);
    } else if (this.callerGone) {
      this.failure = 'connection';
      this.error = { code: PROXY_ERROR_CODES.clientClosed, message: PROXY_MESSAGES.clientClosed };
    } else if (this.ctx.devServerPhase() !== null && failureReason(error) === 'ECONNREFUSED') {
      // Nothing listens there yet. A dev server that took the connection and then reset it
      // is up (and broken): that stays a 502 below.
      this.failure = 'connection';
      this.answerStarting(res, target);
    } else {
      this.failure = 'connection';
      const message = PROXY_MESSAGES.targetUnreachable(target, failureReason(error));
      this.error = { code: PROXY_ERROR_CODES.targetUnreachable, message };
      sendProxyError(res, 502, PROXY_ERROR_CODES.targetUnreachable, message);
    }
    // The dev server will not read the rest of the body: read it ourselves so
    // the request completes (and is recorded) and the connection stays usable.
    if (!this.requestDone) req.resume();
    this.settleAnswer();
  }

  /** The dev server has not said where it listens yet: 503 with Retry-After, never forwarded. */
  devServerNotFound(): void {
    const { req, res } = this;
    if (this.answerDone || !req || !res) return;
    this.failure = 'connection';
    this.answerStarting(res, undefined);
    if (!this.requestDone) req.resume();
    this.settleAnswer();
  }

  private answerStarting(res: ServerResponse, target: string | undefined): void {
    const message = PROXY_MESSAGES.devServerStarting(target);
    this.error = { code: PROXY_ERROR_CODES.devServerStarting, message };
    sendProxyError(res, 503, PROXY_ERROR_CODES.devServerStarting, message, { 'retry-after': String(DEV_SERVER_STARTING_RETRY_AFTER_S) });
  }

  /** The request came from this proxy itself (a --target that leads back here): 508, never forwarded. */
  loopDetected(): void {
    const { req, res } = this;
    if (this.answerDone || !req || !res) return;
    this.failure = 'connection';
    const message = PROXY_MESSAGES.proxyLoop(this.ctx.targetLabel());
    this.error = { code: PROXY_ERROR_CODES.proxyLoop, message };
    sendProxyError(res, 508, PROXY_ERROR_CODES.proxyLoop, message);
    if (!this.requestDone) req.resume();
    this.settleAnswer();
  }

  // ---- the caller --------------------------------------------------------

  callerClosed(): void {
    if (!this.res || this.res.writableFinished) return;
    this.callerGone = true;
    if (!this.answerDone && this.error === null) {
      this.error = { code: PROXY_ERROR_CODES.clientClosed, message: PROXY_MESSAGES.clientClosed };
    }
    // Keep reading the dev server's answer for the record.
    this.upstream?.resume();
    this.ctx.callerLeft(this);
  }

  /** median-dev is stopping: record what there is now. */
  abandon(): void {
    if (this.recorded) return;
    if (!this.answerDone) {
      this.error = { code: PROXY_ERROR_CODES.proxyClosed, message: PROXY_MESSAGES.proxyClosed };
      if (this.status === null) this.failure = 'connection';
      this.settleAnswer();
    }
    this.requestFinished();
  }

  // ---- the record ------------------------------------------------------

  private settleAnswer(): void {
    this.answerDone = true;
    this.endedAt = this.ctx.now();
    if (this.requestDone) this.record();
  }

  private record(): void {
    if (this.recorded) return;
    this.recorded = true;
    this.detach();
    this.ctx.finished(this);
  }

  /**
   * Both sides are done: the streams forget this exchange and it forgets
   * them. Late stream events then find no exchange (there is
   * nothing left for them to do), and no stream keeps a finished exchange
   * alive or the other way round (measured: those links let V8 promote whole
   * finished requests out of the young generation, at a GC cost per request).
   */
  private detach(): void {
    if (this.req) {
      untag(this.req);
      releaseForwarded(this.req);
    }
    if (this.res) untag(this.res);
    this.req = undefined;
    this.res = undefined;
    this.upstream = undefined;
  }

  /**
   * The answer's end, held back until the record is handed to the recorder
   * (issue 18 item 13: a caller that has its answer finds the call in the
   * store, even after a kill -9). The record batch calls it once the record
   * is written (or could not be, or after a time limit). Undefined when
   * nothing is held.
   */
  takeHeldAnswer(): (() => void) | undefined {
    const release = this.heldAnswer;
    this.heldAnswer = undefined;
    return release;
  }

  /** Everything the record is built from (valid once finished). */
  facts(): ExchangeFacts {
    this.inspect();
    return {
      id: this.id,
      receivedAt: this.receivedAt,
      method: this.method,
      path: this.path,
      requestHeaders: this.requestHeaders,
      requestBody: this.requestBody,
      replayOf: this.replayOf,
      kind: this.kind,
      classified: this.classified,
      signature: this.signature,
      status: this.status,
      responseHeaders: this.responseHeaders,
      responseBody: this.responseBody,
      responseComplete: this.responseComplete,
      durationMs: Math.max(0, (this.endedAt ?? this.ctx.now()) - this.receivedAt),
      error: this.error,
      failure: this.failure,
    };
  }
}
