import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

/**
 * Maps a public hostname (a tunnel's `x.loca.lt`) to a loopback address the
 * emulator reaches over plain HTTP, sending the original Host header.
 */
export type HostResolver = (hostname: string) => { host: string; port: number } | undefined;

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Bodies past this many bytes are not read: the result is `too-large`. */
  maxBytes: number;
  resolvers: readonly HostResolver[];
  signal?: AbortSignal;
}

/** What came back, before anyone judged it. Redirects are never followed. */
export type OutboundResult =
  | { kind: 'answer'; status: number; headers: IncomingHttpHeaders; body: Buffer; durationMs: number }
  | { kind: 'too-large'; status: number; headers: IncomingHttpHeaders; bytesRead: number; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'connection'; error: string; durationMs: number }
  | { kind: 'aborted'; durationMs: number };

/**
 * One HTTP request the way the Median cloud sends it: once, with a hard time
 * limit covering connect, headers and body, no redirects, a size limit, and
 * no pooled socket left behind.
 */
export function sendOutbound(req: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: OutboundResult): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };

    let target: URL;
    try {
      target = new URL(req.url);
    } catch {
      finish({ kind: 'connection', error: 'invalid URL', durationMs: elapsed() });
      return;
    }
    const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const resolved = req.resolvers.reduce<ReturnType<HostResolver>>(
      (found, resolver) => found ?? resolver(target.hostname),
      undefined,
    );
    const headers: Record<string, string> = { ...req.headers, host: target.host };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const path = `${target.pathname}${target.search}`;
    const options = { method: req.method, headers, agent: false as const, path };
    const outgoing = resolved
      ? httpRequest({ ...options, host: resolved.host, port: resolved.port })
      : target.protocol === 'https:'
        ? httpsRequest({ ...options, host: hostname, port: target.port || 443, ...(isIP(hostname) ? {} : { servername: hostname }) })
        : httpRequest({ ...options, host: hostname, port: target.port || 80 });
    // Listened to before anything can destroy it: a request destroyed before it has a socket (aborted at
    // once) emits 'socket hang up' on the next turn, which without a listener is an uncaught exception.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      finish({ kind: 'connection', error: error.code ?? error.message, durationMs: elapsed() });
    });

    function onAbort(): void {
      outgoing.destroy();
      finish({ kind: 'aborted', durationMs: elapsed() });
    }
    if (req.signal?.aborted) {
      onAbort();
      return;
    }
    req.signal?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => {
      outgoing.destroy();
      finish({ kind: 'timeout', durationMs: elapsed() });
    }, req.timeoutMs);
    timer.unref();

    outgoing.on('response', (response: IncomingMessage) => readAnswer(response));
    outgoing.end(req.body);

    function readAnswer(response: IncomingMessage): void {
      const status = response.statusCode ?? 0;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > req.maxBytes) {
        outgoing.destroy();
        finish({ kind: 'too-large', status, headers: response.headers, bytesRead: declared, durationMs: elapsed() });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) {
          outgoing.destroy();
          finish({ kind: 'too-large', status, headers: response.headers, bytesRead: size, durationMs: elapsed() });
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        finish({ kind: 'answer', status, headers: response.headers, body: Buffer.concat(chunks), durationMs: elapsed() });
      });
      response.on('error', (error: NodeJS.ErrnoException) => {
        finish({ kind: 'connection', error: error.code ?? error.message, durationMs: elapsed() });
      });
      response.on('aborted', () => {
        finish({ kind: 'connection', error: 'ECONNRESET', durationMs: elapsed() });
      });
    }
  });
}
