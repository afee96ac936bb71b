import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A Median tool route as one Fetch API handler (`Request` in, `Response`
 * out), with nothing but node:crypto: what `median()` serves, written out
 * so it can be copied into any framework. Each folder beside this file
 * mounts it in one framework's own idiom (examples/frameworks/README.md).
 * - `GET` signed → the manifest `{version: 1, tools}`;
 * - `GET` with `Authorization: Bearer <MEDIAN_KEY>` → connect: asks Median
 *   to add MEDIAN_TOOLS_URL as a tool endpoint;
 * - `POST` signed → a tool call `{tool, toolCallId, input, context}`, or
 *   `{"op":"diagnostics"}`;
 * - anything else → 405. Every error is `{error: {code, message}}`.
 * The signature is `median-signature: t=<ms>,v1=<hex>`, the HMAC-SHA256 of
 * `<t>.<raw body>` under the signing secret derived from MEDIAN_KEY (or
 * MEDIAN_TOOL_SECRET), checked in constant time, at most 5 minutes old.
 */

export type Risk = 'low' | 'medium' | 'reviewed' | 'high';

export interface MedianTool {
  /** Letters, numbers and underscores, starting with a letter. */
  name: string;
  /** One sentence that says when to use it: the agent reads it. */
  description: string;
  risk: Risk;
  /** A JSON Schema object with `additionalProperties: false`. */
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  execute(input: Record<string, unknown>, context: Record<string, unknown>): unknown;
}

/** The variables the route runs with, read on every request (a dev server may reload them). */
export interface MedianEnv {
  MEDIAN_KEY?: string | undefined;
  MEDIAN_TOOL_SECRET?: string | undefined;
  MEDIAN_TOOLS_URL?: string | undefined;
  MEDIAN_API_URL?: string | undefined;
}

export interface MedianHandlerOptions {
  tools: MedianTool[];
  /** Where the variables come from: `process.env`, or the framework's own env API. */
  env: () => MedianEnv;
  /** Answers `{"op":"diagnostics"}`; without it: diagnostics_unsupported. */
  diagnostics?: () => unknown;
}

const MAX_SKEW_MS = 5 * 60 * 1000;
const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
const fail = (status: number, code: string, message: string): Response => json(status, { error: { code, message } });

function signingSecret(env: MedianEnv): Buffer | undefined {
  if (env.MEDIAN_TOOL_SECRET && /^[0-9a-fA-F]{64}$/.test(env.MEDIAN_TOOL_SECRET)) return Buffer.from(env.MEDIAN_TOOL_SECRET, 'hex');
  if (!env.MEDIAN_KEY) return undefined;
  return createHmac('sha256', Buffer.from(env.MEDIAN_KEY, 'utf8')).update('median/tool-signing/v1').digest();
}

/** missing_signature, malformed_signature, stale_timestamp, invalid_signature, in that order; undefined when valid. */
function signatureProblem(header: string | null, body: string, secret: Buffer): string | undefined {
  if (!header) return 'missing_signature';
  const match = /^t=(\d+),v1=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return 'malformed_signature';
  if (Math.abs(Date.now() - Number(match[1])) > MAX_SKEW_MS) return 'stale_timestamp';
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')) ? undefined : 'invalid_signature';
}

const SIGNATURE_MESSAGES: Record<string, string> = {
  missing_signature: 'No median-signature header. Median signs every manifest read and tool call; a proxy in front of this server may strip it.',
  malformed_signature: 'The median-signature header is not t=<ms>,v1=<hex>.',
  stale_timestamp: 'The signature is more than 5 minutes from this server’s clock. Fix the clock.',
  invalid_signature: 'The signature does not match this server’s MEDIAN_KEY. Open the route once with Authorization: Bearer $MEDIAN_KEY to reconnect.',
};

function sameKey(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Connect (the docs' "open the route once"): Median adds MEDIAN_TOOLS_URL and syncs it after answering. */
async function connect(env: MedianEnv, key: string, toolCount: number): Promise<Response> {
  const url = env.MEDIAN_TOOLS_URL;
  if (!url || !/^https?:\/\//.test(url)) {
    return fail(400, 'median_endpoint_unknown', 'Median: MEDIAN_TOOLS_URL is not a URL. Set it to this route’s public address, like https://example.com/api/median.');
  }
  const api = (env.MEDIAN_API_URL || 'https://api.median.sh').replace(/\/+$/, '');
  let answer: globalThis.Response;
  try {
    answer = await fetch(`${api}/v1/tool-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ url }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    return fail(502, 'median_unreachable', 'Median could not be reached to connect this route. Check the network and open it again.');
  }
  const text = await answer.text();
  if (answer.ok) {
    return json(200, { connected: true, endpoint: url, tools: toolCount, message: `Connected. Median is syncing ${toolCount} tool${toolCount === 1 ? '' : 's'}.` });
  }
  try {
    const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    if (error?.code && error.message !== undefined) return fail(answer.status, error.code, error.message);
  } catch {
    // not Median's JSON: the status alone says what happened
  }
  return fail(answer.status >= 400 ? answer.status : 502, 'median_refused_connection', `Median refused the connection with HTTP ${answer.status}. Check MEDIAN_KEY and try again.`);
}

/** The input against the tool's schema: required fields, no others, and each field's JSON type. */
function inputProblem(tool: MedianTool, input: Record<string, unknown>): string | undefined {
  const { properties, required = [] } = tool.inputSchema;
  for (const name of required) if (input[name] === undefined) return `input.${name} is required.`;
  for (const [name, value] of Object.entries(input)) {
    const field = properties[name] as { type?: string; enum?: unknown[] } | undefined;
    if (!field) return `input.${name} is not a field of ${tool.name}.`;
    if (field.enum && !field.enum.includes(value)) return `input.${name} must be one of: ${field.enum.join(', ')}.`;
    if (field.type && (field.type === 'integer' ? !Number.isInteger(value) : typeof value !== field.type)) return `input.${name} must be a ${field.type}.`;
  }
  return undefined;
}

async function toolCall(tools: MedianTool[], call: Record<string, unknown>): Promise<Response> {
  if (typeof call.tool !== 'string') return fail(400, 'invalid_body', 'The body has no tool. A tool call is {tool, toolCallId, input, context}.');
  if (!isObject(call.input)) return fail(400, 'invalid_input', 'input must be an object.');
  const tool = tools.find((t) => t.name === call.tool);
  if (!tool) return fail(404, 'unknown_tool', `No tool is called "${call.tool}", so the synced list is behind. Sync the endpoint again.`);
  const problem = inputProblem(tool, call.input);
  if (problem) return fail(400, 'invalid_input', problem);
  try {
    return json(200, { result: (await tool.execute(call.input, isObject(call.context) ? call.context : {})) ?? null });
  } catch (error) {
    // The agent reads this message and is told not to retry.
    return fail(200, 'execution_failed', error instanceof Error ? error.message : String(error));
  }
}

/** The route: mount it for GET and POST (and every other method, which it answers 405). */
export function createMedianHandler(options: MedianHandlerOptions): (request: Request) => Promise<Response> {
  const manifest = {
    version: 1,
    tools: options.tools.map(({ name, description, risk, inputSchema }) => ({ name, description, risk, inputSchema })),
  };
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'POST') {
      return fail(405, 'method_not_allowed', `Only GET and POST are answered, not ${request.method}.`);
    }
    const env = options.env();
    const body = await request.text();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    if (request.method === 'GET' && bearer !== undefined) {
      if (!env.MEDIAN_KEY || !sameKey(bearer, env.MEDIAN_KEY)) {
        return fail(401, 'unauthorized', 'Send Authorization: Bearer $MEDIAN_KEY to connect this endpoint. Manifest reads and tool calls require a valid median-signature.');
      }
      return connect(env, env.MEDIAN_KEY, options.tools.length);
    }
    const secret = signingSecret(env);
    if (!secret) return fail(500, 'missing_secret', 'Median: MEDIAN_KEY is not set on this server, so the route cannot check signatures. Copy the Median key from Settings under API into MEDIAN_KEY and restart.');
    const problem = signatureProblem(request.headers.get('median-signature'), body, secret);
    if (problem) return fail(401, problem, SIGNATURE_MESSAGES[problem]!);
    if (request.method === 'GET') return json(200, manifest);
    let call: unknown;
    try {
      call = JSON.parse(body);
    } catch {
      return fail(400, 'invalid_body', 'The body is not a JSON object.');
    }
    if (!isObject(call)) return fail(400, 'invalid_body', 'The body is not a JSON object.');
    if (call.op === 'diagnostics') {
      if (!options.diagnostics) return fail(200, 'diagnostics_unsupported', 'This route collects no diagnostics.');
      return json(200, { result: (await options.diagnostics()) ?? null });
    }
    if (call.op !== undefined) return fail(400, 'unknown_op', `Median asked for "${String(call.op)}", which this route does not know.`);
    return toolCall(options.tools, call);
  };
}
