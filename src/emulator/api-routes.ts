import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONNECT_MESSAGES } from '../median/index.js';
import type { Logger } from '../shared/index.js';
import { ApiError } from './api-error.js';
import { assertApiKey } from './api-auth.js';
import { checkEndpointUrl } from './endpoint-url-rules.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import type { KeyRing } from './key-ring.js';
import type { RateLimiter } from './rate-limiter.js';
import { EMULATOR_PREFIX, type EmulatorRoutes } from './emulator-routes.js';

export interface ApiRoutesOptions {
  /** The org's keys: any non-revoked one authenticates a call. */
  keys: Pick<KeyRing, 'match'>;
  registry: EndpointRegistry;
  connectRate: RateLimiter;
  /** OUR extensions under /v1/emulator (held endpoints, approvals). */
  extensions: EmulatorRoutes;
  logger: Logger;
}

/** OURS: request bodies past this are refused (the docs give no number). */
const MAX_REQUEST_BYTES = 64 * 1024;

type Json = Record<string, unknown>;
interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Runs after the answer was written (the sync after a connect). */
  after?: () => void;
}

const COLLECTION = '/v1/tool-endpoints';

/**
 * The emulated Median API (SPEC §1.3) as one request handler. Every /v1 call
 * is authenticated first; every error is `{error: {code, message}}`.
 */
export function createApiHandler(options: ApiRoutesOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { registry } = options;

  async function route(req: IncomingMessage, signal: AbortSignal): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path !== '/v1' && !path.startsWith('/v1/')) throw notFound(method, path);
    const callerKey = assertApiKey(req.headers.authorization, options.keys);
    if (path === EMULATOR_PREFIX || path.startsWith(`${EMULATOR_PREFIX}/`)) {
      return options.extensions.handle(method, path, method === 'POST' ? await readJson(req) : {}, callerKey, url.searchParams, signal);
    }

    if (path === COLLECTION) {
      if (method === 'GET') return { status: 200, body: { endpoints: registry.list() } };
      if (method === 'POST') return connect(await readJson(req), callerKey);
      throw notAllowed(method, path, ['GET', 'POST']);
    }
    if (path === `${COLLECTION}/sync`) {
      if (method !== 'POST') throw notAllowed(method, path, ['POST']);
      return sync(registry.pickForSync(url.searchParams.get('url') ?? undefined));
    }
    if (!path.startsWith(`${COLLECTION}/`)) throw notFound(method, path);
    const parts = path.slice(COLLECTION.length + 1).split('/').map(decodeSegment);
    if (parts.some((p) => p === undefined || p === '')) throw notFound(method, path);
    const [id, sub, name] = parts as [string, string | undefined, string | undefined];
    if (parts.length === 1) {
      if (method === 'PATCH') return change(id, await readJson(req));
      if (method === 'DELETE') {
        const record = registry.byId(id);
        registry.remove(record);
        return { status: 200, body: { removed: record.id } };
      }
      throw notAllowed(method, path, ['PATCH', 'DELETE']);
    }
    // OUR extension: the row's Sync button, by id.
    if (parts.length === 2 && sub === 'sync') {
      if (method !== 'POST') throw notAllowed(method, path, ['POST']);
      return sync(registry.byId(id));
    }
    // OUR extension: a tool's switch.
    if (parts.length === 3 && sub === 'tools' && name !== undefined) {
      if (method !== 'PATCH') throw notAllowed(method, path, ['PATCH']);
      const record = registry.byId(id);
      const body = await readJson(req);
      if (typeof body.enabled !== 'boolean') {
        throw new ApiError(400, 'invalid_body', 'Send {"enabled": true} or {"enabled": false}.');
      }
      registry.setToolEnabled(record, name, body.enabled);
      return { status: 200, body: { endpoint: registry.snapshot(record) } };
    }
    throw notFound(method, path);
  }

  /**
   * Connect (opening the route): the endpoint is bound to the caller's key,
   * which signs its syncs and calls from now on. Reconnecting a connected URL
   * with another key rebinds it (the docs' key-rotation recipe).
   */
  function connect(body: Json, callerKey: string): Reply {
    const decision = options.connectRate.take();
    if (!decision.allowed) {
      throw new ApiError(429, 'rate_limited', CONNECT_MESSAGES.rateLimited, {
        'retry-after': String(decision.retryAfterSeconds),
      });
    }
    const url = checkEndpointUrl(body.url);
    const { record, created } = registry.connect(url, callerKey);
    return {
      status: created ? 201 : 200,
      body: { endpoint: registry.snapshot(record) },
      after: () => registry.syncInBackground(record),
    };
  }

  async function sync(record: ReturnType<EndpointRegistry['byId']>): Promise<Reply> {
    const { endpoint, retryAfterSeconds } = registry.manualSync(record);
    return {
      status: 200,
      body: { endpoint: await endpoint },
      ...(retryAfterSeconds === undefined ? {} : { headers: { 'retry-after': String(retryAfterSeconds) } }),
    };
  }

  /**
   * Change endpoint: a new URL, same id and switches. OUR DECISION: it keeps
   * the key the endpoint is bound to, whichever key asks. The docs bind an
   * endpoint to "the key that connected it" and rebind only by opening the
   * route again; Change endpoint is a dashboard action with no key of its
   * own, so it is not a connect.
   */
  async function change(id: string, body: Json): Promise<Reply> {
    const record = registry.byId(id);
    const url = checkEndpointUrl(body.url);
    registry.change(record, url);
    return sync(record);
  }

  return (req, res) => {
    // The asker went away before the answer (a long poll aborted): what waits for it stops waiting.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    route(req, gone.signal).then(
      (reply) => send(res, reply),
      (error: unknown) => {
        if (error instanceof ApiError) {
          send(res, { status: error.status, body: error.toJSON(), headers: { ...error.headers } });
          return;
        }
        options.logger.error('emulator: API request failed', { error: String(error) });
        send(res, { status: 500, body: { error: { code: 'internal_error', message: 'The emulator failed on this request. See its log.' } } });
      },
    );
  };
}

function send(res: ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  let afterRan = false;
  const runAfter = (): void => {
    if (afterRan) return;
    afterRan = true;
    reply.after?.();
  };
  res.end(text, runAfter);
  // If the client went away before the answer was written, still run `after`.
  if (reply.after) res.once('close', runAfter);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // Malformed %-escape: no route matches it.
  }
}

function notFound(method: string, path: string): ApiError {
  return new ApiError(404, 'not_found', `No API route answers ${method} ${path}. The Median API serves ${COLLECTION}.`);
}

function notAllowed(method: string, path: string, allowed: string[]): ApiError {
  return new ApiError(405, 'method_not_allowed', `${path} answers ${allowed.join(' and ')}, not ${method}.`, {
    allow: allowed.join(', '),
  });
}

/** The request body as a JSON object, or 400 `invalid_body` (OURS: the docs give no message). */
async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new ApiError(413, 'invalid_body', 'The request body is too large.');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_body', 'The request body has to be JSON, like {"url": "https://example.com/api/median"}.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(400, 'invalid_body', 'The request body has to be a JSON object, like {"url": "https://example.com/api/median"}.');
  }
  return value as Json;
}
