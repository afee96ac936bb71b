import { describe, expect, it } from 'vitest';
import {
  classifyRequest,
  parseConnectAnswer,
  parseErrorEnvelope,
  parseManifestJson,
  parseToolCall,
  type RequestKind,
} from '../../../src/median/index.js';

const call = {
  tool: 'orderStatus',
  toolCallId: 'call_0123456789abcdef0123456789abcdef',
  input: { orderNumber: 'A1' },
  context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: true, externalId: 'u1', email: 'a@b.c' } },
};
const body = (value: unknown): string => JSON.stringify(value);
const withContext = (patch: Record<string, unknown>) => ({ ...call, context: { ...call.context, ...patch } });
const withVisitor = (patch: Record<string, unknown>) => withContext({ visitor: { ...call.context.visitor, ...patch } });

describe('classifyRequest', () => {
  it.each<[string, string, Record<string, string>, string | Uint8Array, RequestKind, string | undefined]>([
    ['a tool call', 'POST', {}, body(call), 'tool-call', undefined],
    ['a tool call as bytes', 'POST', {}, new TextEncoder().encode(body(call)), 'tool-call', undefined],
    ['diagnostics', 'POST', {}, '{"op":"diagnostics"}', 'diagnostics', undefined],
    ['an unknown op', 'POST', {}, '{"op":"reindex"}', 'other', 'unknown_op'],
    ['a POST that is not JSON', 'POST', {}, 'tool=x', 'tool-call', 'invalid_body'],
    ['a POST with a JSON array', 'POST', {}, '[]', 'tool-call', 'invalid_body'],
    ['a POST without tool', 'POST', {}, '{"toolCallId":"c"}', 'tool-call', 'invalid_body'],
    ['a POST with a bad field', 'POST', {}, body({ ...call, input: [] }), 'tool-call', 'invalid_body'],
    ['GET with Bearer', 'GET', { Authorization: 'Bearer median_key_abc' }, '', 'connect', undefined],
    ['GET with lower-case bearer', 'GET', { authorization: 'bearer median_key_abc' }, '', 'connect', undefined],
    ['GET with an empty Bearer', 'GET', { authorization: 'Bearer ' }, '', 'manifest', undefined],
    ['GET with Basic auth', 'GET', { authorization: 'Basic eDp5' }, '', 'manifest', undefined],
    ['signed GET', 'GET', { 'median-signature': 't=1,v1=ab' }, '', 'manifest', undefined],
    ['lower-case get', 'get', {}, '', 'manifest', undefined],
    ['PUT', 'PUT', {}, body(call), 'other', undefined],
    ['HEAD', 'HEAD', {}, '', 'other', undefined],
  ])('%s → %s', (_label, method, headers, raw, kind, problemCode) => {
    const classified = classifyRequest(method, headers, raw);
    expect(classified.kind).toBe(kind);
    expect(classified.problem?.code).toBe(problemCode);
  });

  it('returns the parsed call', () => {
    expect(classifyRequest('POST', {}, body(call)).toolCall).toEqual(call);
  });

  it('keeps what it could read of a bad call, for records', () => {
    const classified = classifyRequest('POST', {}, body({ ...call, input: 'x' }));
    expect(classified.partial).toEqual({ tool: 'orderStatus', toolCallId: call.toolCallId, conversationId: 'conv_1', risk: 'low' });
  });
});

describe('parseToolCall', () => {
  it.each<[string, unknown, string]>([
    ['not an object', 'x', 'The body is not a JSON object.'],
    ['null', null, 'The body is not a JSON object.'],
    ['no tool', { ...call, tool: undefined }, 'The body has no tool. A tool call is {tool, toolCallId, input, context}.'],
    ['tool not a string', { ...call, tool: 1 }, 'tool must be a string.'],
    ['no toolCallId', { ...call, toolCallId: undefined }, 'toolCallId is required.'],
    ['toolCallId not a string', { ...call, toolCallId: 5 }, 'toolCallId must be a string.'],
    ['no input', { ...call, input: undefined }, 'input is required.'],
    ['input an array', { ...call, input: [] }, 'input must be an object.'],
    ['no context', { ...call, context: undefined }, 'context is required.'],
    ['no conversationId', withContext({ conversationId: undefined }), 'context.conversationId is required.'],
    ['no risk', withContext({ risk: null }), 'context.risk is required.'],
    ['bad risk', withContext({ risk: 'extreme' }), 'context.risk must be one of: low, medium, reviewed, high.'],
    ['no visitor', withContext({ visitor: undefined }), 'context.visitor is required.'],
    ['no verified', withVisitor({ verified: undefined }), 'context.visitor.verified is required.'],
    ['verified as a string', withVisitor({ verified: 'true' }), 'context.visitor.verified must be a boolean.'],
    ['externalId a number', withVisitor({ externalId: 1 }), 'context.visitor.externalId must be a string.'],
    ['approvedBy a number', withContext({ approvedBy: 1 }), 'context.approvedBy must be a string.'],
  ])('%s → %s', (_label, json, message) => {
    expect(parseToolCall(json)).toEqual({ ok: false, code: 'invalid_body', message });
  });

  it('accepts a full call and null optional fields, dropping unknown keys', () => {
    const parsed = parseToolCall({ ...withContext({ approvedBy: 'The reviewer' }), extra: 1 });
    expect(parsed).toEqual({ ok: true, value: { ...call, context: { ...call.context, approvedBy: 'The reviewer' } } });
    const nulls = parseToolCall(withVisitor({ externalId: null, email: null }));
    expect(nulls.ok && nulls.value.context.visitor).toEqual({ verified: true });
  });
});

describe('answer parsers', () => {
  it.each<[unknown, ReturnType<typeof parseErrorEnvelope>]>([
    [{ error: { code: 'boom', message: 'it broke' } }, { code: 'boom', message: 'it broke' }],
    [{ error: { code: 'boom' } }, { code: 'boom' }],
    [{ error: {} }, {}],
    [{ error: 'x' }, undefined],
    [{ result: 1 }, undefined],
    [null, undefined],
  ])('parseErrorEnvelope(%j)', (json, expected) => {
    expect(parseErrorEnvelope(json)).toEqual(expected);
  });

  it('parses a connect answer', () => {
    const answer = { connected: true, endpoint: 'https://acme.com/api/median', tools: 2, message: 'Connected. Median is syncing 2 tools.' };
    expect(parseConnectAnswer(answer)).toEqual(answer);
    expect(parseConnectAnswer({ ...answer, tools: '2' })).toBeUndefined();
    expect(parseConnectAnswer({ error: { code: 'unauthorized', message: 'x' } })).toBeUndefined();
  });

  it('parses a manifest body with the sync rules', () => {
    expect(parseManifestJson('{"version":1,"tools":[]}')).toEqual({ ok: true, manifest: { version: 1, tools: [] } });
    expect(parseManifestJson('<html>')).toEqual({
      ok: false,
      problems: [{ path: '', message: 'The endpoint did not answer with JSON. Is the URL pointing at the route exported by median()?' }],
    });
    expect(parseManifestJson('{"version":1}')).toMatchObject({ ok: false, problems: [{ path: 'tools' }] });
  });
});
