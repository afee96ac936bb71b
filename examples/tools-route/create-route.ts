import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
// Each from its own module, not the area's index.ts: the route's process loads what it uses (about a
// third of the median area's modules), which is what a dev server's start waits for.
import { CONNECT_MESSAGES, ROUTE_MESSAGES } from '../../src/median/messages.js';
import { KEY_MESSAGES, checkMedianKey, resolveToolSecret } from '../../src/median/key.js';
import { SIGNATURE_HEADER, verifySignature, type SignatureOutcome } from '../../src/median/signature.js';
import { parseJsonBody, parseToolCall } from '../../src/median/route-parser.js';
import { checkToolDefinitions, type ToolDefinitionInput } from '../../src/median/tool-definition-rules.js';
import type { Manifest } from '../../src/median/protocol.js';
import { MedianDevError, errorCode } from '../../src/shared/errors.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { connectEndpoint, type RouteAnswer } from './connect-endpoint.js';
import { postWithFetch, postWithNodeHttp } from './median-post.js';
import { isField, toInputSchema } from './field-builder.js';
import { createToolCallRunner } from './tool-call-runner.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ToolPlugin } from './plugins.js';

/**
 * The Median tool route (SPEC §1.2) as a plain node:http handler, serving
 * what `median()` from @mediansh/agent-tools serves: the signed manifest on
 * GET, signed tool calls and diagnostics on POST, and "connect" on a GET with
 * `Authorization: Bearer <MEDIAN_KEY>`. Mount it at your route's path.
 */
export interface ToolRouteOptions {
  /** MEDIAN_KEY. */
  key?: string | undefined;
  /** MEDIAN_TOOL_SECRET (64 hex characters): overrides the secret derived from the key. */
  toolSecret?: string | undefined;
  /** MEDIAN_TOOLS_URL: this route's public address, sent to Median on connect. */
  toolsUrl?: string | undefined;
  /** MEDIAN_API_URL; default https://api.median.sh. */
  apiUrl?: string | undefined;
  tools: ToolDefinition[];
  /** Plugins (`navigation()`, …): their tools are served beside `tools`; name clashes are load errors. */
  plugins?: readonly ToolPlugin[];
  /** Answers `{op: "diagnostics"}`; without it the route answers diagnostics_unsupported. */
  diagnostics?: () => unknown;
  /** Clock for signature checks (ms). */
  now?: () => number;
  /** Used to call the Median API on connect instead of node:http (median-post.ts). */
  fetch?: typeof fetch;
  /** Where thrown tools and route failures are logged. */
  logger?: Logger;
  /** How long Median gets to answer a connect; default 10 s. */
  connectTimeoutMs?: number;
  /** How many toolCallIds the route remembers for repeats; default 1,000. */
  rememberCalls?: number;
  /** Largest body read; default 1 MB. */
  maxBodyBytes?: number;
}

export type ToolRoute = (req: IncomingMessage, res: ServerResponse) => void;

export const DEFAULT_MEDIAN_API_URL = 'https://api.median.sh';

type SecretState = { ok: true; secret: Buffer } | { ok: false; answer: RouteAnswer };

function errorAnswer(status: number, code: string, message: string): RouteAnswer {
  return { status, body: { error: { code, message } } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The secret signatures are checked with, or the 500 the route answers instead. */
function resolveSecret(key: string | undefined, toolSecret: string | undefined): SecretState {
  const problem = key === undefined ? undefined : checkMedianKey(key);
  if (problem !== undefined) {
    const message = problem === 'wrong_prefix' ? KEY_MESSAGES.wrongPrefix : KEY_MESSAGES.malformed;
    return { ok: false, answer: errorAnswer(500, 'invalid_median_key', message) };
  }
  try {
    return { ok: true, secret: resolveToolSecret({ medianKey: key, toolSecret }) };
  } catch (error) {
    // No key and no secret, or a MEDIAN_TOOL_SECRET that is not 64 hex: no usable secret.
    const message = errorCode(error) === 'missing_secret' ? ROUTE_MESSAGES.missingSecret : String((error as Error).message);
    return { ok: false, answer: errorAnswer(500, 'missing_secret', message) };
  }
}

const SIGNATURE_MESSAGES: Record<Exclude<SignatureOutcome, 'valid'>, string> = {
  missing_signature: ROUTE_MESSAGES.missingSignature,
  malformed_signature: ROUTE_MESSAGES.malformedSignature,
  stale_timestamp: ROUTE_MESSAGES.staleTimestamp,
  invalid_signature: ROUTE_MESSAGES.invalidSignature,
};

/** The docs' Load errors: thrown when the route is built, so no tool is served until they are fixed. */
function assertToolsLoad(tools: readonly ToolDefinition[], plugins: readonly ToolPlugin[]): void {
  const declared = tools.map((tool) => (isObject(tool) ? { ...tool, fields: tool.input } : tool));
  const errors = checkToolDefinitions(declared as ToolDefinitionInput[], {
    isSchemaField: isField,
    plugins: plugins.map((plugin) => ({ plugin: plugin.plugin, tools: plugin.tools.map((tool) => tool.name) })),
  });
  if (errors.length > 0) {
    throw new MedianDevError('invalid_tool_definition', errors.join('\n'), { details: { errors } });
  }
}

/** Compares two keys in constant time (hashing first evens out their lengths). */
function sameKey(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The key in `Authorization: Bearer <key>`; a GET with one is a connect. */
function bearerKey(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S.*?)\s*$/i.exec(header ?? '')?.[1];
}

/** The whole body, or undefined when it is over the limit (the rest is drained). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : Buffer.concat(chunks);
}

function send(res: ServerResponse, answer: RouteAnswer, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function createToolRoute(options: ToolRouteOptions): ToolRoute {
  const key = options.key === '' ? undefined : options.key;
  const toolSecret = options.toolSecret === '' ? undefined : options.toolSecret;
  const apiUrl = options.apiUrl || DEFAULT_MEDIAN_API_URL;
  const now = options.now ?? Date.now;
  const postMedian = options.fetch ? postWithFetch(options.fetch) : postWithNodeHttp;
  const logger = options.logger ?? silentLogger;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const plugins = options.plugins ?? [];
  assertToolsLoad(options.tools, plugins);
  // A plugin tool named like one of yours is a load error above, so the names here are unique.
  const tools = [...options.tools, ...plugins.flatMap((plugin) => plugin.tools)];
  const secretState = resolveSecret(key, toolSecret);
  const manifest: Manifest = {
    version: 1,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      risk: tool.risk,
      inputSchema: toInputSchema(tool.input),
    })),
  };
  const runner = createToolCallRunner({ tools, rememberCalls: options.rememberCalls ?? 1000, logger });

  async function connect(given: string): Promise<RouteAnswer> {
    // Also the answer when the server has no MEDIAN_KEY (only a tool secret).
    if (key === undefined || !sameKey(given, key)) {
      return errorAnswer(401, 'unauthorized', CONNECT_MESSAGES.unauthorized);
    }
    return connectEndpoint({
      key,
      toolsUrl: options.toolsUrl,
      apiUrl,
      toolCount: tools.length,
      post: postMedian,
      timeoutMs: options.connectTimeoutMs ?? 10_000,
    });
  }

  async function diagnostics(): Promise<RouteAnswer> {
    if (!options.diagnostics) {
      return errorAnswer(200, 'diagnostics_unsupported', ROUTE_MESSAGES.diagnosticsUnsupported);
    }
    try {
      return { status: 200, body: { result: (await options.diagnostics()) ?? null } };
    } catch (error) {
      logger.error('Median: diagnostics threw.', { stack: error instanceof Error ? error.stack : String(error) });
      return errorAnswer(200, 'execution_failed', error instanceof Error ? error.message : String(error));
    }
  }

  async function answerPost(raw: Buffer, signal: AbortSignal): Promise<RouteAnswer> {
    const parsed = parseJsonBody(raw);
    const body = parsed.ok ? parsed.value : undefined;
    if (isObject(body) && body.op !== undefined) {
      if (body.op === 'diagnostics') return diagnostics();
      const op = typeof body.op === 'string' ? body.op : JSON.stringify(body.op);
      return errorAnswer(400, 'unknown_op', ROUTE_MESSAGES.unknownOp(op));
    }
    const call = parseToolCall(body);
    if (!call.ok) return errorAnswer(400, call.code, call.message);
    return runner.run(call.value, signal);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? '';
    if (method !== 'GET' && method !== 'POST') {
      req.resume();
      send(res, errorAnswer(405, 'method_not_allowed', ROUTE_MESSAGES.methodNotAllowed(method)), { allow: 'GET, POST' });
      return;
    }
    // Aborted when the caller hangs up (or the server closes) before the answer.
    const hangUp = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) hangUp.abort();
    });

    const raw = await readBody(req, maxBodyBytes);
    if (!secretState.ok) return send(res, secretState.answer);
    if (raw === undefined) return send(res, errorAnswer(400, 'invalid_body', ROUTE_MESSAGES.bodyTooLarge(maxBodyBytes)));

    const given = bearerKey(req.headers.authorization);
    if (method === 'GET' && given !== undefined) return send(res, await connect(given));

    const signature = req.headers[SIGNATURE_HEADER];
    const outcome = verifySignature(signature, raw, secretState.secret, now());
    if (outcome !== 'valid') {
      const message =
        outcome === 'missing_signature' && method === 'GET' ? ROUTE_MESSAGES.missingSignatureOnGet : SIGNATURE_MESSAGES[outcome];
      return send(res, errorAnswer(401, outcome, message));
    }
    if (method === 'GET') return send(res, { status: 200, body: manifest });
    send(res, await answerPost(raw, hangUp.signal));
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A caller that left mid-request (its body cut short) needs no answer and is no bug.
      const callerLeft = res.socket === null || res.socket.destroyed;
      if (!callerLeft) logger.error('Median route failed.', { stack: error instanceof Error ? error.stack : String(error) });
      if (res.headersSent || callerLeft) res.destroy();
      else send(res, errorAnswer(500, 'internal_error', ROUTE_MESSAGES.internal));
    });
  };
}
