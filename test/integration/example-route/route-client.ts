import { deriveToolSecret, signBody } from '../../../src/median/index.js';
import {
  createDemoTools,
  startToolRouteServer,
  type ToolRouteServer,
  type ToolRouteServerOptions,
} from '../../../examples/tools-route/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

export const KEY = 'median_key_' + 'A1b2C3d4'.repeat(4);
export const OTHER_KEY = 'median_key_' + 'Z9y8X7w6'.repeat(4);
export const SECRET = deriveToolSecret(KEY);

/** The example route with the demo tools on 127.0.0.1 port 0, closed after the test. */
export async function useToolRoute(options: Partial<ToolRouteServerOptions> = {}): Promise<ToolRouteServer> {
  const server = await startToolRouteServer({
    port: 0,
    key: KEY,
    tools: createDemoTools({ msPerSecond: 1 }),
    ...options,
  });
  return useTeardown(server, (s) => s.close());
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export interface SignOptions {
  secret?: Uint8Array;
  timestamp?: number;
  /** Replaces the median-signature header (undefined: none sent). */
  signature?: string | undefined;
  /** Hang up after this many ms. */
  timeoutMs?: number;
}

function signatureHeaders(body: string, options: SignOptions): Record<string, string> {
  if ('signature' in options) return options.signature === undefined ? {} : { 'median-signature': options.signature };
  return { 'median-signature': signBody(options.secret ?? SECRET, body, options.timestamp ?? Date.now()) };
}

/** A signed POST of `body` (an object is sent as JSON, a string as is). */
export async function signedPost(url: string, body: unknown, options: SignOptions = {}): Promise<Answer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signatureHeaders(text, options) },
    body: text,
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
  });
  return answerOf(response);
}

/** A signed GET (the manifest read). */
export async function signedGet(url: string, options: SignOptions = {}): Promise<Answer> {
  return answerOf(await fetch(url, { headers: signatureHeaders('', options) }));
}

/** A GET with `Authorization: Bearer <key>` (connect). */
export async function bearerGet(url: string, key: string): Promise<Answer> {
  return answerOf(await fetch(url, { headers: { authorization: `Bearer ${key}` } }));
}

export async function plainRequest(url: string, init: RequestInit = {}): Promise<Answer> {
  return answerOf(await fetch(url, init));
}

let nextId = 0;

/** A tool call body as Median sends it. */
export function toolCall(
  tool: string,
  input: Record<string, unknown> = {},
  context: Record<string, unknown> = {},
): Record<string, unknown> {
  nextId += 1;
  return {
    tool,
    toolCallId: `call_${nextId.toString(16).padStart(32, '0')}`,
    input,
    context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: false }, ...context },
  };
}
