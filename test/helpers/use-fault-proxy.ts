import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { useHttpServer } from './use-http-server.js';

/**
 * A fault-injecting stand-in for an external service (the Median API, a
 * tunnel server's registration): a reverse proxy on 127.0.0.1 port 0 that
 * passes requests through to `upstream`, except the next N that a fault was
 * armed for, and remembers every request it got.
 */
export type Fault =
  /** Answers this status, body (an object is sent as JSON) and headers. */
  | { kind: 'answer'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers: holds the request until the client gives up or the stand-in closes. */
  | { kind: 'stall' }
  /** Passes the request through with another path (and query), e.g. a tunnel registration for `/<name>` as `/?new`. */
  | { kind: 'rewrite'; path: string };

export interface SeenRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** When it arrived: Date.now(), or the time of the clock the stand-in was given. */
  at: number;
  /** What it got: passed through, or the fault's kind. */
  outcome: 'passed' | Fault['kind'];
}

export interface FaultProxy {
  url: string;
  requests: SeenRequest[];
  /** The next `times` requests that `match` (default: every one) get `fault`; armed faults apply in order. */
  failNext(times: number, fault: Fault, match?: (request: { method: string; path: string }) => boolean): void;
  /** Disarms every fault: everything passes through from now on. */
  heal(): void;
  /** Requests seen so far that match. */
  count(match?: (request: SeenRequest) => boolean): number;
}

/** Median's rate-limit answer (the docs' code and message) with `Retry-After`. */
export function rateLimited(retryAfterSeconds: number): Fault {
  return {
    kind: 'answer',
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: { error: { code: 'rate_limited', message: 'Too many requests. Wait a moment and try again.' } },
  };
}

/** A page where JSON belongs, as a broken gateway or a captive portal answers. */
export function garbage(status = 200): Fault {
  return { kind: 'answer', status, headers: { 'content-type': 'text/html' }, body: '<html><body>502 Bad Gateway</body></html>' };
}

interface Armed {
  left: number;
  fault: Fault;
  match: (request: { method: string; path: string }) => boolean;
}

export async function useFaultProxy(upstream: string, clock: { now(): number } = Date): Promise<FaultProxy> {
  const target = new URL(upstream);
  const requests: SeenRequest[] = [];
  let armed: Armed[] = [];

  const answer = (res: ServerResponse, fault: Extract<Fault, { kind: 'answer' }>) => {
    const text = typeof fault.body === 'string' ? fault.body : fault.body === undefined ? '' : JSON.stringify(fault.body);
    res.writeHead(fault.status, {
      ...(typeof fault.body === 'string' || fault.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...fault.headers,
    });
    res.end(text);
  };

  const passThrough = (req: IncomingMessage, res: ServerResponse, path = req.url) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: target.host },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    outgoing.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(outgoing);
  };

  const server = await useHttpServer((req, res) => {
    const seen = { method: req.method ?? '', path: req.url ?? '/' };
    const rule = armed.find((a) => a.left > 0 && a.match(seen));
    if (rule) rule.left -= 1;
    const fault = rule?.fault;
    requests.push({ ...seen, at: clock.now(), outcome: fault ? fault.kind : 'passed' });
    if (!fault) return passThrough(req, res);
    if (fault.kind === 'rewrite') return passThrough(req, res, fault.path);
    req.resume();
    if (fault.kind === 'answer') return answer(res, fault);
    // 'stall': nothing is sent; the socket closes when the client aborts or the server closes.
  });

  return {
    url: server.url,
    requests,
    failNext(times, fault, match = () => true) {
      armed.push({ left: times, fault, match });
    },
    heal() {
      armed = [];
    },
    count(match = () => true) {
      return requests.filter(match).length;
    },
  };
}
