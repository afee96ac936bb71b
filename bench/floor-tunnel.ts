/**
 * The floors of the tunnel bench, each median-dev's own localtunnel client
 * opened as the daemon opens it (src/tunnel, the sockets handed straight to
 * an HTTP server or piped), with nothing else in the process:
 *   - `answer`: Node's HTTP server answers every request itself with a body
 *     like the example route's (one HTTP termination; no forwarding, no
 *     signature check, no record, no event). Any design that terminates the
 *     tunnel's HTTP once in Node costs at least this per call.
 *   - `forward`: Node's HTTP server forwarding each request to the dev
 *     server with Node's HTTP client (a keep-alive Agent) and piping the
 *     answer back: two terminations, nothing recorded, no http-proxy-3.
 *   - `relay`: Node's HTTP server, then the request's head and body written
 *     to a kept raw socket to the dev server and the answer's bytes relayed
 *     to the caller as they come, cut by their Content-Length (one
 *     termination, no second client stack: the shape the forwarder would
 *     have). A bench floor only: it frames nothing but Content-Length answers.
 *   - `record`: `relay` doing the recording work of the daemon on each call
 *     with its own modules (signature check, the body classified, the
 *     record built and judged, appended by the real recorder to a store in
 *     a temporary folder, the answer's end held until the record is
 *     written), and nothing else: no event, no line printed, no inspector.
 *     The cheapest recording daemon of the relay's shape.
 *   - `proxy`: the daemon's own recording proxy (src/proxy: the defended
 *     forwarder, its limits and checks) and recorder, the tunnel's sockets
 *     handed to it as the daemon hands them, each record appended as the
 *     daemon's record sink appends it, and nothing else: no `call` event,
 *     no `--json` line, no inspector, no control channel. What the daemon
 *     costs beyond it is its events and listeners.
 *   - `pipe`: each tunnel socket piped to the dev server, as the stock
 *     client does (the tunnel's transport alone).
 */
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BodyCapture } from '../src/proxy/body-capture.js';
import { buildCallRecord, type RecordSettings } from '../src/proxy/build-call-record.js';
import { MEDIAN_CALL_LIMITS, SIGNATURE_HEADER, classifyRequest, deriveToolSecret, newRecordId, verifySignature } from '../src/median/index.js';
import { startRecordingProxy, type RecordingProxy } from '../src/proxy/index.js';
import { openRecorder, type Recorder } from '../src/recorder/index.js';
import { createLocaltunnelProvider, startTunnel } from '../src/tunnel/index.js';

export type FloorMode = 'answer' | 'relay' | 'record' | 'proxy' | 'forward' | 'pipe';
export const FLOOR_MODES: readonly FloorMode[] = ['answer', 'relay', 'record', 'proxy', 'forward', 'pipe'];

/** Called once the answer is read, before its end is written; the answer waits for it. */
type BeforeEnd = (req: IncomingMessage, body: Buffer, receivedAt: number, status: number, headers: Record<string, string>, answer: Buffer) => Promise<unknown> | undefined;

/** What the example route answers `orderStatus` with, give or take a digit. */
const ANSWER = Buffer.from(
  JSON.stringify({ result: { orderNumber: 'A-10001', status: 'shipped', eta: 'in 2 days', medianNavigateTo: '/orders/A-10001' } }),
  'utf8',
);

function answeringServer(): Server {
  return createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length });
      res.end(ANSWER);
    });
  });
}

function forwardingServer(target: URL): { server: Server; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
  const server = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return { server, close: () => agent.destroy() };
}

/** Kept raw sockets to the dev server; one request at a time on each. */
function relayingServer(target: URL, beforeEnd?: BeforeEnd): { server: Server; close(): void } {
  const idle: Socket[] = [];
  const all = new Set<Socket>();
  const relay = (req: IncomingMessage, res: ServerResponse, body: Buffer, receivedAt: number): void => {
    let socket = idle.pop();
    while (socket?.destroyed) socket = idle.pop();
    if (!socket) {
      const fresh = connect({ host: target.hostname, port: Number(target.port) });
      // As the daemon's own upstream connections (src/proxy/upstream-pool.ts) have it.
      fresh.setNoDelay(true);
      all.add(fresh);
      // As the Agent does: closed before the dev server's 5 s keep-alive timeout can close it under a request.
      fresh.setTimeout(4_000, () => fresh.destroy());
      fresh.on('error', () => fresh.destroy());
      fresh.once('close', () => {
        all.delete(fresh);
        const at = idle.indexOf(fresh);
        if (at >= 0) idle.splice(at, 1);
      });
      socket = fresh;
    }
    const own = socket;
    const onGone = (): void => {
      if (!res.writableEnded) res.destroy();
    };
    own.once('close', onGone);
    let head = `${req.method} ${req.url} HTTP/1.1\r\n`;
    for (let i = 0; i < req.rawHeaders.length; i += 2) head += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
    own.write(Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]));
    let pending: Buffer = Buffer.alloc(0);
    let bodyAt = -1;
    let wanted = 0;
    let answerStatus = 0;
    let answerHeaders: Record<string, string> = {};
    const onData = (chunk: Buffer): void => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      if (bodyAt < 0) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        bodyAt = end + 4;
        const lines = pending.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(lines[0]!.split(' ')[1]);
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).toLowerCase();
          if (name !== 'connection' && name !== 'keep-alive') headers[name] = line.slice(colon + 1).trim();
        }
        wanted = Number(headers['content-length'] ?? 0);
        answerStatus = status;
        answerHeaders = headers;
        res.writeHead(status, headers);
      }
      if (pending.length - bodyAt < wanted) return;
      own.off('data', onData);
      own.off('close', onGone);
      idle.push(own);
      const answer = pending.subarray(bodyAt, bodyAt + wanted);
      const held = beforeEnd?.(req, body, receivedAt, answerStatus, answerHeaders, answer);
      if (held) void held.then(() => res.end(answer), () => res.end(answer));
      else res.end(answer);
    };
    own.on('data', onData);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const receivedAt = Date.now();
    req.once('end', () => relay(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), receivedAt));
  });
  return { server, close: () => { for (const socket of all) socket.destroy(); } };
}

/** The daemon's recording work for one relayed call, with its own modules. */
function recordingWork(recorder: Recorder, secret: Uint8Array, settings: RecordSettings): BeforeEnd {
  return (req, body, receivedAt, status, headers, answer) => {
    const requestBody = new BodyCapture(settings.recordBodyBytes);
    requestBody.add(body);
    const responseBody = new BodyCapture(settings.recordBodyBytes);
    responseBody.add(answer);
    const classified = classifyRequest(req.method ?? 'POST', req.headers, body);
    const record = buildCallRecord(
      {
        id: newRecordId(receivedAt),
        receivedAt,
        method: req.method ?? 'POST',
        path: req.url ?? '/',
        requestHeaders: req.headers as Record<string, string>,
        requestBody,
        replayOf: null,
        kind: classified.kind,
        classified,
        signature: verifySignature(req.headers[SIGNATURE_HEADER], body, secret, receivedAt),
        status,
        responseHeaders: headers,
        responseBody,
        responseComplete: true,
        durationMs: Date.now() - receivedAt,
        error: null,
        failure: undefined,
      },
      settings,
    );
    return recorder.append(record);
  };
}

export async function startFloorTunnel(spec: { mode: FloorMode; tunnelHost: string; target: string; subdomain: string; medianKey: string }): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(spec.target);
  const storeDir = spec.mode === 'record' || spec.mode === 'proxy' ? await mkdtemp(join(tmpdir(), 'median-dev-bench-floor-')) : undefined;
  // As the daemon opens it: the key masked in every record.
  const recorder = storeDir ? await openRecorder({ dataDir: storeDir, secrets: [spec.medianKey] }) : undefined;
  const settings: RecordSettings = { limits: MEDIAN_CALL_LIMITS, recordBodyBytes: 1024 * 1024, endpointUrl: new URL('/api/median/tools', target).href };
  const made =
    spec.mode === 'answer'
      ? { server: answeringServer(), close: () => undefined }
      : spec.mode === 'forward'
        ? forwardingServer(target)
        : spec.mode === 'relay' || spec.mode === 'record'
          ? relayingServer(target, recorder ? recordingWork(recorder, deriveToolSecret(spec.medianKey), settings) : undefined)
          : undefined;
  let proxy: RecordingProxy | undefined;
  const server = made?.server;
  /** Everything but the tunnel, in order; also what a failed start leaves behind. */
  const closeParts = async (): Promise<void> => {
    made?.close();
    await proxy?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    await recorder?.close();
    if (storeDir) await rm(storeDir, { recursive: true, force: true });
  };
  let tunnel: Awaited<ReturnType<typeof startTunnel>>;
  try {
    // As start-daemon.ts starts it for the tunnel: the route, the secret, records appended before the answer's end goes.
    if (spec.mode === 'proxy' && recorder) {
      proxy = await startRecordingProxy({
        target: spec.target,
        // The default route (the daemon's config), which the bench's calls are sent to.
        route: '/api/median',
        secret: deriveToolSecret(spec.medianKey),
        onRecord: (record) => recorder.append(record).then(() => undefined),
      });
    }
    if (server) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server?.address();
    const accepting = proxy;
    const localPort = accepting ? accepting.port : address && typeof address === 'object' ? address.port : Number(new URL(spec.target).port);
    tunnel = await startTunnel({
      provider: createLocaltunnelProvider({ host: spec.tunnelHost }),
      localPort,
      subdomain: spec.subdomain,
      nameRetryMs: 0,
      ...(server ? { handOff: (socket) => server.emit('connection', socket) } : accepting ? { handOff: (socket) => accepting.acceptConnection(socket) } : {}),
    });
  } catch (error) {
    await closeParts();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: tunnel.url ?? '',
    close() {
      closing ??= (async () => {
        await tunnel.close();
        await closeParts();
      })();
      return closing;
    },
  };
}
