import { refusedOrigin } from '../../helpers/refused-port.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CONNECT_MESSAGES, signBody } from '../../../src/median/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { KEY, OTHER_KEY, SECRET, bearerGet, plainRequest, useToolRoute } from './route-client.js';

const TOOLS_URL = 'https://shop-dev.loca.lt/api/median';

interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A real HTTP server standing in for the Median API (an external service):
 * answers `POST /v1/tool-endpoints` with `status` and `body`, and records
 * what it was sent.
 */
async function useMedianApi(status: number, body: unknown, contentType = 'application/json') {
  const seen: SeenRequest[] = [];
  const api = await useHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    const raw = (await readBody(req)).toString('utf8');
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body: raw === '' ? undefined : JSON.parse(raw),
    });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': contentType }).end(text);
  });
  return { url: api.url, server: api.server, seen };
}

const endpoint = (url: string) => ({
  endpoint: { id: 'ep_1', url, status: 'pending', error: null, tools: [], createdAt: '2025-01-01T00:00:00Z', syncedAt: null },
});

describe('example route: connect (GET with Authorization: Bearer)', () => {
  it('asks Median to add MEDIAN_TOOLS_URL and answers connected', async () => {
    const api = await useMedianApi(201, endpoint(TOOLS_URL));
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: `${api.url}/` });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      connected: true,
      endpoint: TOOLS_URL,
      tools: 7,
      message: 'Connected. Median is syncing 7 tools.',
    });
    expect(api.seen).toEqual([
      { method: 'POST', path: '/v1/tool-endpoints', authorization: `Bearer ${KEY}`, body: { url: TOOLS_URL } },
    ]);
  });

  it('answers 401 unauthorized for a different key, without calling Median', async () => {
    const api = await useMedianApi(201, endpoint(TOOLS_URL));
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url });
    const answer = await bearerGet(route.url, OTHER_KEY);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: { code: 'unauthorized', message: CONNECT_MESSAGES.unauthorized } });
    expect(api.seen).toEqual([]);
  });

  it.each([
    ['another scheme', { authorization: `Basic ${KEY}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['no authorization', {}],
  ])('treats a GET with %s as an unsigned manifest read (401 missing_signature)', async (_name, headers) => {
    const api = await useMedianApi(201, endpoint(TOOLS_URL));
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url });
    const answer = await plainRequest(route.url, { headers });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('missing_signature');
    expect(answer.body.error.message).toContain('Authorization: Bearer $MEDIAN_KEY');
    expect(api.seen).toEqual([]);
  });

  it('answers 401 unauthorized when the server has no MEDIAN_KEY, only a tool secret', async () => {
    const route = await useToolRoute({ key: undefined, toolSecret: 'ab'.repeat(32), toolsUrl: TOOLS_URL });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('unauthorized');
  });

  it.each([undefined, '', 'not a url', 'ftp://example.com/api/median'])(
    'answers 400 median_endpoint_unknown for MEDIAN_TOOLS_URL=%s',
    async (toolsUrl) => {
      const api = await useMedianApi(201, endpoint(TOOLS_URL));
      const route = await useToolRoute({ toolsUrl, apiUrl: api.url });
      const answer = await bearerGet(route.url, KEY);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: { code: 'median_endpoint_unknown', message: CONNECT_MESSAGES.endpointUnknown } });
      expect(api.seen).toEqual([]);
    },
  );

  it.each([
    [401, 'invalid_api_key', CONNECT_MESSAGES.invalidApiKey],
    [400, 'legacy_api_key', CONNECT_MESSAGES.legacyApiKey],
    [400, 'missing_median_key', CONNECT_MESSAGES.missingMedianKey],
    [400, 'invalid_url', CONNECT_MESSAGES.urlNotHttps],
    [400, 'invalid_url', CONNECT_MESSAGES.urlPrivate],
    [400, 'duplicate_endpoint', CONNECT_MESSAGES.duplicateEndpoint],
    [400, 'too_many_tool_endpoints', CONNECT_MESSAGES.tooManyEndpoints],
    [429, 'rate_limited', CONNECT_MESSAGES.rateLimited],
  ])('passes Median’s %i %s through', async (status, code, message) => {
    const api = await useMedianApi(status, { error: { code, message } });
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error: { code, message } });
  });

  it.each([
    [503, '<html>Service Unavailable</html>', 'text/html'],
    [500, '', 'text/plain'],
  ])('answers median_refused_connection for HTTP %i without Median’s error body', async (status, body, type) => {
    const api = await useMedianApi(status, body, type);
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({
      error: { code: 'median_refused_connection', message: CONNECT_MESSAGES.refusedConnection(status) },
    });
    expect(answer.body.error.message).toBe(
      `Median refused the connection with HTTP ${status}. Check MEDIAN_KEY and try again.`,
    );
  });

  it('answers 502 median_unreachable when nothing listens at MEDIAN_API_URL', async () => {
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: await refusedOrigin() });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(502);
    expect(answer.body).toEqual({ error: { code: 'median_unreachable', message: CONNECT_MESSAGES.unreachable } });
  });

  it('answers 502 median_unreachable when Median does not answer in time', async () => {
    const silent = await useHttpServer(() => {
      // never answers: the route's connect timeout has to fire
    });
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: silent.url, connectTimeoutMs: 200 });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('median_unreachable');
  });

  it('answers 502 median_unreachable when Median cuts its answer off', async () => {
    const cutting = await useHttpServer((_req, res) => {
      // A head promising 100 bytes, 10 of them, then the connection goes.
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"endpoint');
      setImmediate(() => res.socket?.destroy());
    });
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: cutting.url });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('median_unreachable');
  });

  it('answers 502 median_unreachable for an https MEDIAN_API_URL where nothing listens', async () => {
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: (await refusedOrigin()).replace('http:', 'https:') });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('median_unreachable');
  });

  it('opens a connection of its own for each connect and closes it after the answer', async () => {
    const api = await useMedianApi(201, endpoint(TOOLS_URL));
    let connections = 0;
    api.server.on('connection', () => (connections += 1));
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url });
    expect((await bearerGet(route.url, KEY)).status).toBe(200);
    expect((await bearerGet(route.url, KEY)).status).toBe(200);
    // No kept-alive socket is reused: one the API closed meanwhile would fail the next connect.
    expect(connections).toBe(2);
    expect(api.seen).toHaveLength(2);
  });

  it('sends the connect through the `fetch` given in its options', async () => {
    const api = await useMedianApi(201, endpoint(TOOLS_URL));
    const asked: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      asked.push(`${init?.method} ${String(input)}`);
      return fetch(input, init);
    };
    const route = await useToolRoute({ toolsUrl: TOOLS_URL, apiUrl: api.url, fetch: countingFetch });
    const answer = await bearerGet(route.url, KEY);
    expect(answer.status).toBe(200);
    expect(answer.body.connected).toBe(true);
    expect(asked).toEqual([`POST ${api.url}/v1/tool-endpoints`]);
    expect(api.seen).toEqual([{ method: 'POST', path: '/v1/tool-endpoints', authorization: `Bearer ${KEY}`, body: { url: TOOLS_URL } }]);
  });

  it('treats a GET with a Bearer key as a connect even when it is also signed', async () => {
    const route = await useToolRoute({ toolsUrl: TOOLS_URL });
    const answer = await plainRequest(route.url, {
      headers: { authorization: `Bearer ${OTHER_KEY}`, 'median-signature': signBody(SECRET, '') },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('unauthorized');
  });
});
