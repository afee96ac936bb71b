/**
 * Requests Node's HTTP parser refuses before any handler sees them
 * (conflicting Content-Length/Transfer-Encoding, bad framing, header
 * floods, headers that never finish): answered with the status Node would
 * send, and recorded, so a broken client shows up in `calls` like any other.
 */
import type { Duplex } from 'node:stream';
import { newRecordId, type CallRecord } from '../median/index.js';

const REFUSALS: Readonly<Record<string, { status: number; reason: string; code: string; message: string }>> = Object.freeze({
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', code: 'headers_too_large', message: 'The request headers were too large or too many.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'request_timeout', message: 'The request did not arrive whole in time (headers or body too slow).' },
});
const MALFORMED = { status: 400, reason: 'Bad Request', code: 'bad_request', message: 'The request is not valid HTTP/1.1' };
const RAW_KEPT_BYTES = 1024;

export function refuseClientError(
  error: Error & { code?: string; rawPacket?: Buffer },
  socket: Duplex,
  options: { now: () => number; onRecord(record: CallRecord): void },
): void {
  // A client that is gone (reset, closed) needs no answer and is no request.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = (error.code && REFUSALS[error.code]) || MALFORMED;
  socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  const at = options.now();
  const raw = error.rawPacket ? error.rawPacket.subarray(0, RAW_KEPT_BYTES).toString('latin1') : '';
  const firstLine = raw.split('\r\n', 1)[0] ?? '';
  const [method = '', path = ''] = firstLine.split(' ');
  const message = refusal === MALFORMED ? `${MALFORMED.message} (${error.code ?? error.message}).` : refusal.message;
  options.onRecord({
    id: newRecordId(at),
    toolCallId: '',
    tool: null,
    conversationId: null,
    risk: null,
    kind: 'other',
    receivedAt: new Date(at).toISOString(),
    durationMs: 0,
    request: { method, path, headers: {}, body: raw, ...(error.rawPacket && error.rawPacket.length > RAW_KEPT_BYTES ? { truncated: true, size: error.rawPacket.length } : {}) },
    response: { status: refusal.status, headers: {}, body: '' },
    signature: 'unchecked',
    verdict: {
      kind: 'not-answering',
      agentSees: 'The tool is not answering.',
      warnings: [],
      callError: `median-dev refused it before the dev server: ${message}`,
    },
    replayOf: null,
    error: { code: refusal.code, message },
  });
}
