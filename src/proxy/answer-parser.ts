/**
 * A strict HTTP/1.1 answer parser (RFC 9112) for the dev server's answers,
 * one per upstream connection, reused answer after answer. It frames the
 * answer as llhttp (Node's own parser) does in its strict mode, and refuses
 * what a proxy cannot frame safely, with llhttp's error codes:
 *
 * - the status line: `HTTP/1.1` or `HTTP/1.0`, three digits, a reason of
 *   visible characters; 1xx answers (100 Continue, 103 Early Hints) are
 *   skipped, a 101 to a request that asked for no upgrade is refused;
 * - the head: at most 16 KiB (Node's `maxHeaderSize`) and 2,000 fields;
 *   every line ends in CRLF (a bare CR or LF is refused), no obs-fold (a
 *   line starting with a space or tab), names are tokens, values hold no
 *   control characters but tab;
 * - the body's length: none for HEAD, 1xx, 204 and 304; `chunked` (the only
 *   transfer coding accepted) with its extensions and trailers checked and
 *   size-limited; else Content-Length (digits only); else until the
 *   connection closes. Two Content-Lengths (even equal ones), two
 *   Transfer-Encodings, or both at once are refused: an answer two parsers
 *   could read in two ways never reaches our caller.
 *
 * A length that lies is caught by whoever holds the connection: too few
 * bytes then a close is an answer broken off (`eof()` throws); bytes past
 * the end are `excess`, and that connection is never used again, so they
 * can never be read as the next call's answer.
 */
import { answerHeadersOf } from './answer-headers.js';
import type { IncomingHttpHeaders } from 'node:http';

export interface AnswerHead {
  statusCode: number;
  statusMessage: string;
  /** `[name, value, name, value…]` in the dev server's order and spelling. */
  rawHeaders: string[];
  /** As Node's IncomingMessage#headers (answer-headers.ts). */
  headers: IncomingHttpHeaders;
}

export interface AnswerEvents {
  answerHead(head: AnswerHead): void;
  answerBody(chunk: Buffer): void;
  /** The answer is complete; `keepAlive` says whether the connection may carry another. */
  answerEnd(keepAlive: boolean): void;
}

/** What the parser refused, with llhttp's code (shown in the proxy's 502 message as the reason). */
export class AnswerFramingError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export const MAX_ANSWER_HEAD_BYTES = 16 * 1024;
export const MAX_ANSWER_FIELDS = 2_000;
const MAX_CHUNK_LINE = 4_096;

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/;
const FIELD_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[\t ]*([\t\x20-\x7e\x80-\xff]*?)[\t ]*$/;
const DIGITS = /^\d{1,15}$/;
const CLOSE_TOKEN = /(?:^|,)[\t ]*close[\t ]*(?:,|$)/i;

const enum State {
  Idle,
  Head,
  Length,
  ChunkLine,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
}

const CR = 0x0d;
const LF = 0x0a;
const EMPTY = Buffer.alloc(0);

function refuse(code: string, message: string): never {
  throw new AnswerFramingError(code, message);
}

/** Splits a head (without its final CRLF CRLF) into lines, refusing a bare CR or LF. */
function headLines(text: string): string[] {
  const lines = text.split('\r\n');
  for (const line of lines) if (line.includes('\r') || line.includes('\n')) refuse('HPE_CR_EXPECTED', 'a bare CR or LF in the answer head');
  return lines;
}

/** Checks field lines (headers or trailers) into `into` as `[name, value…]`. */
function readFields(lines: readonly string[], from: number, into: string[]): void {
  if (lines.length - from > MAX_ANSWER_FIELDS) refuse('HPE_HEADER_OVERFLOW', 'too many header fields in the answer');
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) refuse('HPE_INVALID_HEADER_TOKEN', 'obs-fold (a header line continued) in the answer');
    const field = FIELD_LINE.exec(line);
    if (field === null) refuse('HPE_INVALID_HEADER_TOKEN', 'an invalid header line in the answer');
    into.push(field[1] as string, field[2] as string);
  }
}

export class AnswerParser {
  private state = State.Idle;
  private isHeadRequest = false;
  private pending: Buffer = EMPTY;
  private remaining = 0;
  private keepAlive = false;
  /** Bytes came after the end of the answer: the connection must not carry another. */
  excess = false;

  constructor(private readonly events: AnswerEvents) {}

  /** A request was sent: its answer is next. */
  begin(isHeadRequest: boolean): void {
    this.state = State.Head;
    this.isHeadRequest = isHeadRequest;
    this.pending = EMPTY;
    this.excess = false;
  }

  /** Takes bytes from the connection. Throws AnswerFramingError on what it refuses. */
  execute(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case State.Idle:
          this.excess = true;
          return;
        case State.Head:
          at = this.takeHead(chunk, at);
          break;
        case State.Length:
        case State.ChunkData:
          at = this.takeBody(chunk, at);
          break;
        case State.ChunkLine:
          at = this.takeChunkLine(chunk, at);
          break;
        case State.ChunkDataEnd: {
          const byte = chunk[at++];
          if (byte !== (this.remaining === 2 ? CR : LF)) refuse('HPE_STRICT', 'a chunk not followed by CRLF in the answer');
          if (--this.remaining === 0) this.state = State.ChunkLine;
          break;
        }
        case State.Trailers:
          at = this.takeTrailers(chunk, at);
          break;
        case State.UntilClose:
          this.events.answerBody(at === 0 ? chunk : chunk.subarray(at));
          return;
      }
    }
  }

  /** The connection ended. Throws when that cuts an answer short. */
  eof(): void {
    if (this.state === State.UntilClose) {
      this.finish();
      return;
    }
    if (this.state !== State.Idle) refuse('ECONNRESET', 'the dev server closed the connection before its answer was complete');
  }

  /** Gathers bytes up to `marker` (what was pending, then `chunk` from `at`) within `limit` bytes; the number consumed while it is not there yet. */
  private gather(chunk: Buffer, at: number, marker: string, limit: number, code: string): { whole: Buffer; end: number } | number {
    const before = this.pending.length;
    const whole = before === 0 ? (at === 0 ? chunk : chunk.subarray(at)) : Buffer.concat([this.pending, chunk.subarray(at)]);
    const end = whole.indexOf(marker, Math.max(0, before - marker.length + 1), 'latin1');
    if (end < 0) {
      if (whole.length > limit) refuse(code, 'the answer head is too large');
      this.pending = whole;
      return chunk.length;
    }
    if (end + marker.length > limit) refuse(code, 'the answer head is too large');
    this.pending = EMPTY;
    return { whole, end };
  }

  /** Up to `remaining` bytes of a length-delimited body or of a chunk, handed on. */
  private takeBody(chunk: Buffer, at: number): number {
    const take = Math.min(this.remaining, chunk.length - at);
    this.remaining -= take;
    const isLast = this.remaining === 0;
    if (isLast && this.state === State.ChunkData) {
      this.state = State.ChunkDataEnd;
      this.remaining = 2;
    }
    this.events.answerBody(chunk.subarray(at, at + take));
    if (isLast && this.state === State.Length) this.finish();
    return at + take;
  }

  private takeHead(chunk: Buffer, at: number): number {
    const pendingBefore = this.pending.length;
    const got = this.gather(chunk, at, '\r\n\r\n', MAX_ANSWER_HEAD_BYTES, 'HPE_HEADER_OVERFLOW');
    if (typeof got === 'number') return got;
    const consumed = at + (got.end + 4 - pendingBefore);
    const lines = headLines(got.whole.toString('latin1', 0, got.end));
    const status = STATUS_LINE.exec(lines[0] as string);
    if (status === null) refuse('HPE_INVALID_STATUS', 'an invalid status line in the answer');
    const statusCode = Number(status[2]);
    const rawHeaders: string[] = [];
    readFields(lines, 1, rawHeaders);
    if (statusCode < 200) {
      if (statusCode === 101) refuse('HPE_INVALID_STATUS', 'a 101 Switching Protocols answer to a request that asked for no upgrade');
      // 100 Continue, 103 Early Hints: informational, the real answer follows (Node drops them too).
      return consumed;
    }
    this.startBody(statusCode, status[1] === '1', rawHeaders);
    this.events.answerHead({ statusCode, statusMessage: status[3] ?? '', rawHeaders, headers: answerHeadersOf(rawHeaders) });
    if (this.state === State.Idle) this.events.answerEnd(this.keepAlive);
    return consumed;
  }

  /** Decides how the body is framed (RFC 9112 §6.3), refusing every ambiguity. */
  private startBody(statusCode: number, isHttp11: boolean, rawHeaders: readonly string[]): void {
    let length: string | undefined;
    let coding: string | undefined;
    let connection = '';
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as string).toLowerCase();
      const value = rawHeaders[i + 1] as string;
      if (name === 'content-length') {
        if (length !== undefined) refuse('HPE_UNEXPECTED_CONTENT_LENGTH', 'two Content-Length headers in the answer');
        if (!DIGITS.test(value)) refuse('HPE_INVALID_CONTENT_LENGTH', 'an invalid Content-Length in the answer');
        length = value;
      } else if (name === 'transfer-encoding') {
        if (coding !== undefined) refuse('HPE_INVALID_TRANSFER_ENCODING', 'two Transfer-Encoding headers in the answer');
        coding = value;
      } else if (name === 'connection') connection += `${connection ? ',' : ''}${value}`;
    }
    if (coding !== undefined) {
      if (length !== undefined) refuse('HPE_UNEXPECTED_CONTENT_LENGTH', 'both Content-Length and Transfer-Encoding in the answer');
      if (coding.toLowerCase() !== 'chunked' || !isHttp11) refuse('HPE_INVALID_TRANSFER_ENCODING', 'a transfer coding other than chunked in the answer');
    }
    this.keepAlive = isHttp11 && !CLOSE_TOKEN.test(connection);
    if (this.isHeadRequest || statusCode === 204 || statusCode === 304) this.state = State.Idle;
    else if (coding !== undefined) this.state = State.ChunkLine;
    else if (length !== undefined) {
      this.remaining = Number(length);
      this.state = this.remaining === 0 ? State.Idle : State.Length;
    } else {
      this.keepAlive = false;
      this.state = State.UntilClose;
    }
  }

  private takeChunkLine(chunk: Buffer, at: number): number {
    const pendingBefore = this.pending.length;
    const got = this.gather(chunk, at, '\r\n', MAX_CHUNK_LINE, 'HPE_INVALID_CHUNK_SIZE');
    if (typeof got === 'number') return got;
    const line = got.whole.toString('latin1', 0, got.end);
    const size = /^([0-9A-Fa-f]{1,12})(?:[\t ]*;[\t\x20-\x7e\x80-\xff]*)?$/.exec(line);
    if (size === null || line.includes('\r') || line.includes('\n')) refuse('HPE_INVALID_CHUNK_SIZE', 'an invalid chunk size line in the answer');
    this.remaining = Number.parseInt(size[1] as string, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
    return at + (got.end + 2 - pendingBefore);
  }

  private takeTrailers(chunk: Buffer, at: number): number {
    // No trailers: the last chunk's line is followed by CRLF alone.
    if (this.pending.length === 0 && chunk.length - at >= 2 && chunk[at] === CR && chunk[at + 1] === LF) {
      this.finish();
      return at + 2;
    }
    if (this.pending.length === 1 && this.pending[0] === CR && chunk[at] === LF) {
      this.pending = EMPTY;
      this.finish();
      return at + 1;
    }
    if (this.pending.length === 0 && chunk.length - at === 1 && chunk[at] === CR) {
      this.pending = Buffer.from([CR]);
      return at + 1;
    }
    const pendingBefore = this.pending.length;
    const got = this.gather(chunk, at, '\r\n\r\n', MAX_ANSWER_HEAD_BYTES, 'HPE_HEADER_OVERFLOW');
    if (typeof got === 'number') return got;
    // Trailers are checked like headers and dropped (the current path never sent them on either).
    readFields(headLines(got.whole.toString('latin1', 0, got.end)), 0, []);
    this.finish();
    return at + (got.end + 4 - pendingBefore);
  }

  private finish(): void {
    this.state = State.Idle;
    this.events.answerEnd(this.keepAlive);
  }
}
