/**
 * Turns raw requests and answers of the route protocol into typed values or
 * precise problems. Never throws.
 */
import { checkManifest, type ManifestProblem } from './manifest-rules.js';
import { ROUTE_MESSAGES, SYNC_MESSAGES } from './messages.js';
import { RISKS, type ConnectAnswer, type Manifest, type RequestKind, type Risk, type ToolCall, type Visitor } from './protocol.js';
import { parseBoundedJson } from '../shared/safe-json.js';

export type HeaderMap = Record<string, string | string[] | undefined>;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A header's value, looked up case-insensitively; the first one when repeated. */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

const decoder = new TextDecoder('utf-8');

/** Bytes → text the way `fetch().text()` would: UTF-8, bad bytes replaced, BOM dropped. */
export function bodyText(body: Uint8Array | string): string {
  return typeof body === 'string' ? body : decoder.decode(body);
}

/** Size in bytes of a body as sent. */
export function bodyByteLength(body: Uint8Array | string): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** JSON.parse that reports instead of throwing. */
export function parseJsonBody(body: Uint8Array | string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseBoundedJson(bodyText(body)) };
  } catch {
    // Not JSON (or unreadable): the caller decides what that means.
    return { ok: false };
  }
}

/** `{error: {code, message}}`, leniently: whichever of the two are strings. */
export function parseErrorEnvelope(json: unknown): { code?: string; message?: string } | undefined {
  if (!isObject(json) || !isObject(json['error'])) return undefined;
  const error = json['error'];
  const out: { code?: string; message?: string } = {};
  if (typeof error['code'] === 'string') out.code = error['code'];
  if (typeof error['message'] === 'string') out.message = error['message'];
  return out;
}

/** A connect answer `{connected, endpoint, tools, message}`, or undefined. */
export function parseConnectAnswer(json: unknown): ConnectAnswer | undefined {
  if (!isObject(json)) return undefined;
  const { connected, endpoint, tools, message } = json;
  if (typeof connected !== 'boolean' || typeof endpoint !== 'string' || typeof message !== 'string') return undefined;
  if (typeof tools !== 'number' || !Number.isInteger(tools) || tools < 0) return undefined;
  return { connected, endpoint, tools, message };
}

/** A manifest body checked against every single-manifest sync rule. */
export function parseManifestJson(
  body: Uint8Array | string,
): { ok: true; manifest: Manifest } | { ok: false; problems: ManifestProblem[] } {
  const parsed = parseJsonBody(body);
  if (!parsed.ok) return { ok: false, problems: [{ path: '', message: SYNC_MESSAGES.notJson }] };
  const problems = checkManifest(parsed.value);
  return problems.length === 0 ? { ok: true, manifest: parsed.value as Manifest } : { ok: false, problems };
}

type Check = { ok: true } | { ok: false; message: string };
const OK: Check = { ok: true };
const bad = (message: string): Check => ({ ok: false, message });

/** Optional fields: absent or null is fine, else a string. */
function optionalString(value: unknown, path: string): Check {
  return value === undefined || value === null || typeof value === 'string' ? OK : bad(ROUTE_MESSAGES.fieldMustBeString(path));
}

function requiredString(value: unknown, path: string): Check {
  if (value === undefined || value === null) return bad(ROUTE_MESSAGES.fieldRequired(path));
  return typeof value === 'string' ? OK : bad(ROUTE_MESSAGES.fieldMustBeString(path));
}

function requiredObject(value: unknown, path: string): Check {
  if (value === undefined || value === null) return bad(ROUTE_MESSAGES.fieldRequired(path));
  return isObject(value) ? OK : bad(ROUTE_MESSAGES.fieldMustBeObject(path));
}

function firstProblem(checks: Array<() => Check>): string | undefined {
  for (const check of checks) {
    const outcome = check();
    if (!outcome.ok) return outcome.message;
  }
  return undefined;
}

export type ParsedToolCall = { ok: true; value: ToolCall } | { ok: false; code: 'invalid_body'; message: string };

/**
 * A tool call body `{tool, toolCallId, input, context}` checked field by
 * field; the problem names the first failing field. Null counts as absent.
 */
export function parseToolCall(json: unknown): ParsedToolCall {
  const fail = (message: string): ParsedToolCall => ({ ok: false, code: 'invalid_body', message });
  if (!isObject(json)) return fail(ROUTE_MESSAGES.bodyNotObject);
  if (json['tool'] === undefined || json['tool'] === null) return fail(ROUTE_MESSAGES.bodyNoTool);
  const context = json['context'];
  const ctx = isObject(context) ? context : {};
  const visitor = isObject(ctx['visitor']) ? ctx['visitor'] : {};
  const problem = firstProblem([
    () => requiredString(json['tool'], 'tool'),
    () => requiredString(json['toolCallId'], 'toolCallId'),
    () => requiredObject(json['input'], 'input'),
    () => requiredObject(context, 'context'),
    () => requiredString(ctx['conversationId'], 'context.conversationId'),
    () =>
      ctx['risk'] === undefined || ctx['risk'] === null
        ? bad(ROUTE_MESSAGES.fieldRequired('context.risk'))
        : (RISKS as readonly unknown[]).includes(ctx['risk'])
          ? OK
          : bad(ROUTE_MESSAGES.fieldMustBeRisk('context.risk')),
    () => requiredObject(ctx['visitor'], 'context.visitor'),
    () =>
      visitor['verified'] === undefined || visitor['verified'] === null
        ? bad(ROUTE_MESSAGES.fieldRequired('context.visitor.verified'))
        : typeof visitor['verified'] === 'boolean'
          ? OK
          : bad(ROUTE_MESSAGES.fieldMustBeBoolean('context.visitor.verified')),
    () => optionalString(visitor['externalId'], 'context.visitor.externalId'),
    () => optionalString(visitor['email'], 'context.visitor.email'),
    () => optionalString(visitor['name'], 'context.visitor.name'),
    () => optionalString(ctx['approvedBy'], 'context.approvedBy'),
  ]);
  if (problem !== undefined) return fail(problem);

  const v: Visitor = { verified: visitor['verified'] as boolean };
  for (const key of ['externalId', 'email', 'name'] as const) {
    if (typeof visitor[key] === 'string') v[key] = visitor[key] as string;
  }
  const value: ToolCall = {
    tool: json['tool'] as string,
    toolCallId: json['toolCallId'] as string,
    input: json['input'] as Record<string, unknown>,
    context: { conversationId: ctx['conversationId'] as string, risk: ctx['risk'] as Risk, visitor: v },
  };
  if (typeof ctx['approvedBy'] === 'string') value.context.approvedBy = ctx['approvedBy'];
  return { ok: true, value };
}

export interface ClassifiedRequest {
  kind: RequestKind;
  /** A tool call that passed parseToolCall. */
  toolCall?: ToolCall;
  /** Why the route would answer 400 (`invalid_body`, `unknown_op`). */
  problem?: { code: string; message: string };
  /**
   * Whatever could be read from a tool call body that failed, for records:
   * the string fields among tool, toolCallId, context.conversationId, and a
   * valid context.risk.
   */
  partial?: { tool?: string; toolCallId?: string; conversationId?: string; risk?: Risk };
}

/**
 * A body too deep to read as a call (parseJsonBody refused it) may still be
 * one: `JSON.parse` itself takes any depth, and partialToolCall reads only
 * its top-level strings, so its record keeps the toolCallId it was sent with
 * (found by `show <toolCallId>`, its replay matched to it).
 */
function topLevelOf(body: Uint8Array | string): unknown {
  try {
    return JSON.parse(bodyText(body)) as unknown;
  } catch {
    return undefined; // not JSON at all: nothing to read
  }
}

function partialToolCall(json: unknown): ClassifiedRequest['partial'] {
  if (!isObject(json)) return {};
  const context = isObject(json['context']) ? json['context'] : {};
  const partial: NonNullable<ClassifiedRequest['partial']> = {};
  if (typeof json['tool'] === 'string') partial.tool = json['tool'];
  if (typeof json['toolCallId'] === 'string') partial.toolCallId = json['toolCallId'];
  if (typeof context['conversationId'] === 'string') partial.conversationId = context['conversationId'];
  if ((RISKS as readonly unknown[]).includes(context['risk'])) partial.risk = context['risk'] as Risk;
  return partial;
}

/**
 * What a request to the route is. POST `{"op":"diagnostics"}` → diagnostics
 * (another op → `other` with `unknown_op`); any other POST → tool-call, with
 * `invalid_body` when it is not a valid call; GET with `Authorization:
 * Bearer …` → connect; other GET → manifest; other methods → other.
 * Never throws.
 */
export function classifyRequest(method: string, headers: HeaderMap, body: Uint8Array | string): ClassifiedRequest {
  try {
    const verb = typeof method === 'string' ? method.toUpperCase() : '';
    if (verb === 'GET') {
      const auth = headerValue(headers, 'authorization');
      return { kind: auth !== undefined && /^bearer\s+\S/i.test(auth.trim()) ? 'connect' : 'manifest' };
    }
    if (verb !== 'POST') return { kind: 'other' };
    const parsed = typeof body === 'string' || body instanceof Uint8Array ? parseJsonBody(body) : { ok: false as const };
    if (parsed.ok && isObject(parsed.value) && parsed.value['op'] !== undefined) {
      const op = parsed.value['op'];
      if (op === 'diagnostics') return { kind: 'diagnostics' };
      return { kind: 'other', problem: { code: 'unknown_op', message: ROUTE_MESSAGES.unknownOp(typeof op === 'string' ? op : JSON.stringify(op)) } };
    }
    const value = parsed.ok ? parsed.value : undefined;
    const call = parseToolCall(value);
    if (call.ok) return { kind: 'tool-call', toolCall: call.value };
    return { kind: 'tool-call', problem: { code: call.code, message: call.message }, partial: partialToolCall(parsed.ok ? value : topLevelOf(body)) };
  } catch {
    // Unreachable in practice (everything above is guarded); a request we
    // cannot read is an invalid body.
    return { kind: 'tool-call', problem: { code: 'invalid_body', message: ROUTE_MESSAGES.bodyNotObject } };
  }
}
