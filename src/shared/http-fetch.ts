import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What httpFetch sends: the part of fetch's RequestInit the daemon uses. Redirects are never followed (fetch's `manual`). */
export interface HttpFetchInit {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as UTF-8 with its Content-Length, as fetch sends a string body. */
  body?: string;
  signal?: AbortSignal;
  redirect?: 'manual';
  /** false: a connection of its own, closed after this request; default: Node's keep-alive pool, as fetch pools. */
  keepAlive?: boolean;
  /**
   * Not fetch's: the socket may sit idle this long (before the answer or in
   * the middle of its body) before the request is cut with an `ETIMEDOUT`
   * error; none by default (the signal bounds the request).
   */
  idleTimeoutMs?: number;
  /** Not fetch's: the body keeps its first so many bytes; the rest is read and dropped. None by default. */
  maxBodyBytes?: number;
}

/** The answer's headers, read as fetch's Headers reads them (lower-case names, repeated values joined by ", "). */
export interface AnswerHeaders {
  get(name: string): string | null;
  entries(): IterableIterator<[string, string]>;
}

/** The part of fetch's Response the daemon reads; a real Response has all of it, so tests may pass `fetch` itself. */
export interface HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  /** The body as text: UTF-8, bad bytes replaced, a BOM dropped, as Response.text(). */
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Drops the body unread (and its connection). */
  readonly body: { cancel(): Promise<void> } | null;
}

export type HttpFetch = (url: string, init?: HttpFetchInit) => Promise<HttpAnswer>;

/**
 * A request shaped like `fetch` (same init, same answer, same failures: a
 * TypeError "fetch failed" with the socket's error as its cause, or the
 * signal's reason once aborted), sent with Node's own HTTP client. Not
 * `fetch`: the daemon already has node:http loaded for its servers, while
 * the first fetch loads Node's bundled undici, 40–55 ms of one core measured
 * here, on the start's critical path (the route's first look, Median's
 * first call); and a pending fetch ticks undici's 500 ms timer.
 */
export function httpFetch(url: string, init: HttpFetchInit = {}): Promise<HttpAnswer> {
  const signal = init.signal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let target: URL;
  try {
    target = new URL(url);
  } catch (error) {
    return Promise.reject(new TypeError('fetch failed', { cause: error }));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.reject(new TypeError('fetch failed', { cause: new Error(`${target.protocol} URLs are not fetched, only http: and https:`) }));
  }
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'median-dev', ...lowerCased(init.headers) };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const idleTimeoutMs = init.idleTimeoutMs;
    const req = send(target, {
      method: init.method ?? 'GET',
      headers,
      ...(init.keepAlive === false ? { agent: false } : {}),
      ...(idleTimeoutMs !== undefined ? { timeout: idleTimeoutMs } : {}),
    });
    // The idle timeout's error, kept: cut in the middle of the body, Node reports the socket's close instead.
    let timedOut: Error | undefined;
    // Only when asked: Node 20's global agent gives its sockets a 5 s timeout of its own and reports it as the
    // request's 'timeout' too, which must not cut a slow answer (a tool that runs 8 s, a long poll).
    if (idleTimeoutMs !== undefined) {
      req.on('timeout', () => {
        timedOut = Object.assign(new Error(`no byte for ${idleTimeoutMs} ms`), { code: 'ETIMEDOUT' });
        req.destroy(timedOut);
      });
    }
    const onAbort = (): void => {
      req.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(answerOf(res, req.destroy.bind(req), signal, init.maxBodyBytes ?? Infinity, () => timedOut));
    });
    req.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    req.end(init.body);
  });
}

function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

const decoder = new TextDecoder('utf-8');

function answerOf(res: IncomingMessage, destroy: () => void, signal: AbortSignal | undefined, maxBodyBytes: number, timedOut: () => Error | undefined): HttpAnswer {
  const status = res.statusCode ?? 0;
  let bytes: Promise<Buffer> | undefined;
  const readAll = (): Promise<Buffer> => {
    bytes ??= new Promise<Buffer>((resolve, reject) => {
      if (signal?.aborted) {
        destroy();
        reject(signal.reason);
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      const onAbort = (): void => {
        destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      res.on('data', (chunk: Buffer) => {
        if (kept >= maxBodyBytes) return;
        const part = kept + chunk.length <= maxBodyBytes ? chunk : chunk.subarray(0, maxBodyBytes - kept);
        chunks.push(part);
        kept += part.length;
      });
      res.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(Buffer.concat(chunks));
      });
      // Cut mid-body (reset, or the signal): undici's "terminated".
      res.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError('terminated', { cause: timedOut() ?? error }));
      });
      // Closed before its end without an error (a socket cut with nothing left to say): cut all the same.
      res.on('close', () => {
        if (res.complete) return;
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError('terminated', { cause: timedOut() ?? new Error('the connection closed before the body ended') }));
      });
    });
    return bytes;
  };
  const text = async (): Promise<string> => decoder.decode(await readAll());
  return {
    status,
    ok: status >= 200 && status <= 299,
    headers: headersOf(res.headers),
    text,
    json: async () => JSON.parse(await text()) as unknown,
    arrayBuffer: async () => {
      const all = await readAll();
      return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
    },
    body: {
      cancel: async () => {
        if (bytes) return;
        bytes = Promise.resolve(Buffer.alloc(0));
        destroy();
        res.resume();
      },
    },
  };
}

function headersOf(raw: IncomingHttpHeaders): AnswerHeaders {
  const map = new Map<string, string>();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    map.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return {
    get: (name) => map.get(name.toLowerCase()) ?? null,
    entries: () => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[Symbol.iterator](),
  };
}
