import { STATUS_CODES } from 'node:http';
import type { CallRecord, RecordedMessage } from '../median/call-record.js';

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the parts we fill. */
export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarCookie {
  name: string;
  value: string;
}

export interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: { mimeType: string; text: string };
  headersSize: number;
  bodySize: number;
}

export interface HarResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarCookie[];
  headers: HarNameValue[];
  content: { size: number; mimeType: string; text?: string };
  redirectURL: string;
  headersSize: number;
  bodySize: number;
  _error?: { code: string; message: string };
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  /** Custom fields (HAR allows names starting with `_`): what median-dev knows of the call. */
  _recordId: string;
  _toolCallId: string;
  _tool: string | null;
  _signature: string;
  _verdict: string;
  _replayOf: string | null;
}

/** The whole HAR document: `{log: {version: "1.2", creator, entries}}`. */
export interface HarLog {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
  };
}

export interface HarOptions {
  creator: { name: string; version: string };
  /** Origin for a recorded request without a usable Host header (default `http://localhost`). */
  baseUrl?: string;
  /**
   * Entries in the order given (saved calls keep their files' order). By
   * default they are sorted by `startedDateTime`, oldest first, the order
   * HAR 1.2 prefers and browser devtools list them in.
   */
  isOrderKept?: boolean;
}

function headerList(headers: RecordedMessage['headers'] | undefined): HarNameValue[] {
  const list: HarNameValue[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) list.push({ name, value: String(one) });
  }
  return list;
}

function headerValue(headers: RecordedMessage['headers'] | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function requestCookies(headers: RecordedMessage['headers'] | undefined): HarCookie[] {
  const header = headerValue(headers, 'cookie');
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.includes('='))
    .map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1) }));
}

function responseCookies(headers: RecordedMessage['headers'] | undefined): HarCookie[] {
  const cookies: HarCookie[] = [];
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== 'set-cookie') continue;
    for (const line of Array.isArray(value) ? value : [value]) {
      const pair = String(line).split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.push({ name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() });
    }
  }
  return cookies;
}

function bodySize(message: RecordedMessage): number {
  return message.size ?? Buffer.byteLength(message.body ?? '', 'utf8');
}

function absoluteUrl(path: string, baseUrl: string): URL {
  try {
    return new URL(path, baseUrl);
  } catch {
    // A base URL that does not parse: the entry still needs an absolute URL.
    return new URL(path.startsWith('/') ? path : `/${path}`, 'http://localhost');
  }
}

/** A Host header's value that is a host and maybe a port, nothing else (it came from the network). */
const HOST_VALUE = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The URL the request really had: its Host header (the tunnel's hostname,
 * or `127.0.0.1:4141` for a local call) with the scheme the tunnel says it
 * came in over (`X-Forwarded-Proto`), else the base URL's scheme for the base
 * URL's host, else `http`. Without a Host header, the path on the base URL.
 */
function requestUrl(record: CallRecord, baseUrl: string): URL {
  const host = headerValue(record.request.headers, 'host')?.trim();
  if (host && HOST_VALUE.test(host)) {
    const forwarded = headerValue(record.request.headers, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    let base: URL | undefined;
    try {
      base = new URL(baseUrl);
    } catch {
      base = undefined;
    }
    const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : base?.host === host.toLowerCase() ? base.protocol.slice(0, -1) : 'http';
    try {
      return new URL(record.request.path.startsWith('/') ? record.request.path : `/${record.request.path}`, `${scheme}://${host}`);
    } catch {
      // A host the URL parser refuses after all: fall back to the base URL.
    }
  }
  return absoluteUrl(record.request.path, baseUrl);
}

function receivedMs(record: CallRecord): number {
  const at = Date.parse(record.receivedAt);
  return Number.isNaN(at) ? 0 : at;
}

function isoDate(text: string): string {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function toEntry(record: CallRecord, baseUrl: string): HarEntry {
  const url = requestUrl(record, baseUrl);
  const requestType = headerValue(record.request.headers, 'content-type') ?? 'application/json';
  const request: HarRequest = {
    method: record.request.method,
    url: url.href,
    httpVersion: 'HTTP/1.1',
    cookies: requestCookies(record.request.headers),
    headers: headerList(record.request.headers),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    headersSize: -1,
    bodySize: record.request.body ? bodySize(record.request) : 0,
    ...(record.request.body ? { postData: { mimeType: requestType, text: record.request.body } } : {}),
  };
  const answer = record.response;
  const response: HarResponse = answer
    ? {
        status: answer.status,
        statusText: STATUS_CODES[answer.status] ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: responseCookies(answer.headers),
        headers: headerList(answer.headers),
        content: {
          size: bodySize(answer),
          mimeType: headerValue(answer.headers, 'content-type') ?? 'x-unknown',
          text: answer.body,
        },
        redirectURL: headerValue(answer.headers, 'location') ?? '',
        headersSize: -1,
        bodySize: bodySize(answer),
      }
    : {
        // No answer (timeout, target down): status 0, as browsers export failed requests.
        status: 0,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        content: { size: 0, mimeType: 'x-unknown' },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
        ...(record.error ? { _error: record.error } : {}),
      };
  const wait = Math.max(0, record.durationMs ?? 0);
  return {
    startedDateTime: isoDate(record.receivedAt),
    time: wait,
    request,
    response,
    cache: {},
    timings: { send: 0, wait, receive: 0 },
    comment: `${record.tool ?? record.kind}: ${record.verdict.kind}`,
    _recordId: record.id,
    _toolCallId: record.toolCallId,
    _tool: record.tool,
    _signature: record.signature,
    _verdict: record.verdict.kind,
    _replayOf: record.replayOf,
  };
}

/**
 * Recorded calls as a HAR 1.2 log, oldest first by when each call came in
 * (`isOrderKept`: as given). Records are already masked on disk, so no
 * secret reaches the file.
 */
export function toHar(records: CallRecord[], options: HarOptions): HarLog {
  const baseUrl = options.baseUrl ?? 'http://localhost';
  // Array.prototype.sort is stable: calls received in the same millisecond keep the order given.
  const ordered = options.isOrderKept ? records : [...records].sort((a, b) => receivedMs(a) - receivedMs(b));
  return {
    log: {
      version: '1.2',
      creator: { name: options.creator.name, version: options.creator.version },
      entries: ordered.map((record) => toEntry(record, baseUrl)),
    },
  };
}
