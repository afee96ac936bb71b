import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTeardown } from './use-teardown.js';

/**
 * A running ngrok agent as median-dev sees it, from ngrok's documented agent
 * API (no auth, JSON): `GET /api/tunnels` →
 * `{"tunnels":[{"name","uri","public_url","proto","config":{"addr","inspect"}}],"uri":"/api/tunnels"}`;
 * with `shape: 'endpoints'` also `GET /api/endpoints` →
 * `{"endpoints":[{"id","name","url","upstream":{"url","protocol"}}]}` (the v3
 * agent config's endpoint fields); `shape: 'tunnels'` answers that path 404,
 * as older agents do. The ngrok edge is played by `edgePort`: an HTTP
 * forwarder that sends a request for an endpoint's host to its upstream.
 */
export interface FakeNgrokAgent {
  apiUrl: string;
  edgePort: number;
  /** What the agent serves now: public URL → upstream (`localhost:4141`, `http://127.0.0.1:4141`, `4141`). */
  serve(endpoints: Array<{ url: string; upstream: string }>): void;
  /** Requests the API answered. */
  apiRequests: string[];
  close(): Promise<void>;
}

/** The same, stopped when the test ends. */
export async function useFakeNgrokAgent(...args: Parameters<typeof startFakeNgrokAgent>): Promise<FakeNgrokAgent> {
  return useTeardown(await startFakeNgrokAgent(...args), (h) => h.close());
}

/** Started by hand (the bench); `close()` stops it. */
export async function startFakeNgrokAgent(shape: 'endpoints' | 'tunnels' = 'endpoints'): Promise<FakeNgrokAgent> {
  let endpoints: Array<{ url: string; upstream: string }> = [];
  const apiRequests: string[] = [];
  const api = createServer((req, res) => {
    apiRequests.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.url === '/api/endpoints' && shape === 'endpoints') {
      res.end(JSON.stringify({ endpoints: endpoints.map((e, i) => ({ id: `ep_${i}`, name: `e${i}`, url: e.url, upstream: { url: e.upstream, protocol: 'http1' } })), uri: '/api/endpoints' }));
      return;
    }
    if (req.url === '/api/tunnels') {
      res.end(JSON.stringify({ tunnels: endpoints.map((e, i) => ({ name: i === 0 ? 'command_line' : `t${i}`, uri: `/api/tunnels/t${i}`, public_url: e.url, proto: 'https', config: { addr: e.upstream, inspect: true } })), uri: '/api/tunnels' }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error_code: 100, status_code: 404, msg: 'Not Found', details: { path: req.url } }));
  });
  const edge = createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const endpoint = endpoints.find((e) => new URL(e.url).host === host);
    if (!endpoint) {
      // ERR_NGROK_3200: the endpoint is offline.
      res.writeHead(404, { 'ngrok-error-code': 'ERR_NGROK_3200', 'content-type': 'text/html' }).end('The endpoint is offline.');
      return;
    }
    const upstream = new URL(/^\d+$/.test(endpoint.upstream) ? `http://127.0.0.1:${endpoint.upstream}` : /:\/\//.test(endpoint.upstream) ? endpoint.upstream : `http://${endpoint.upstream}`);
    const out = request({ host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502, { 'ngrok-error-code': 'ERR_NGROK_8012' }).end()));
    req.pipe(out);
  });
  const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const [apiPort, edgePort] = [await listen(api), await listen(edge)];
  let closing: Promise<void> | undefined;
  const handle: FakeNgrokAgent = {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    edgePort,
    apiRequests,
    serve(next) {
      endpoints = next;
    },
    close() {
      closing ??= (async () => {
        api.closeAllConnections();
        edge.closeAllConnections();
        await Promise.all([new Promise((r) => api.close(r)), new Promise((r) => edge.close(r))]);
      })();
      return closing;
    },
  };
  return handle;
}
