/**
 * The request's head as Node's `http.request` wrote it for the headers of
 * `req.headers` (what the dev server saw before our own client took over):
 * `METHOD path HTTP/1.1`, each header as `name: value` (an array as one line
 * per value), `Host` added when missing, `Connection: keep-alive` when the
 * request has no Connection header, and `Content-Length: 0` on a method that
 * has a body by default (POST, PUT, PATCH, …) when the request has neither a
 * length nor a transfer coding. In latin1, as Node writes headers.
 */
import type { IncomingMessage } from 'node:http';
import type { UpstreamTarget } from './upstream-call.js';

const NO_BODY_BY_DEFAULT = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/** The head for `method`, `path` and `headers` to `target`. */
export function requestHead(method: string, path: string, headers: IncomingMessage['headers'], target: UpstreamTarget): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\n`;
  let hasHost = false;
  let hasLength = false;
  let hasCoding = false;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (name === 'host') hasHost = true;
    else if (name === 'content-length') hasLength = true;
    else if (name === 'transfer-encoding') hasCoding = true;
    if (Array.isArray(value)) for (const one of value) head += `${name}: ${one}\r\n`;
    else head += `${name}: ${value}\r\n`;
  }
  if (!hasHost) head += `Host: ${target.hostHeader}\r\n`;
  if (headers.connection === undefined) head += 'Connection: keep-alive\r\n';
  if (!hasLength && !hasCoding && !NO_BODY_BY_DEFAULT.has(method)) head += 'Content-Length: 0\r\n';
  return Buffer.from(`${head}\r\n`, 'latin1');
}
