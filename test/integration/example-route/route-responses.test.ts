import { describe, expect, it } from 'vitest';
import { KEY_MESSAGES, ROUTE_MESSAGES, deriveToolSecret } from '../../../src/median/index.js';
import {
  KEY,
  OTHER_KEY,
  bearerGet,
  plainRequest,
  signedGet,
  signedPost,
  toolCall,
  useToolRoute,
} from './route-client.js';
import { startToolRouteServer } from '../../../examples/tools-route/index.js';

describe('example route: methods and keys', () => {
  it.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'])('%s → 405 method_not_allowed', async (method) => {
    const route = await useToolRoute();
    const answer = await plainRequest(route.url, { method });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, POST');
    if (method !== 'HEAD') expect(answer.body.error.code).toBe('method_not_allowed');
  });

  it('answers 500 missing_secret with no key and no secret, for reads, calls and connects', async () => {
    const route = await useToolRoute({ key: undefined });
    for (const answer of [
      await signedGet(route.url),
      await signedPost(route.url, toolCall('orderStatus', { orderNumber: 'A1' })),
      await bearerGet(route.url, KEY),
    ]) {
      expect(answer.status).toBe(500);
      expect(answer.body.error.code).toBe('missing_secret');
    }
  });

  it.each([
    ['pk_live_' + 'a'.repeat(40), KEY_MESSAGES.wrongPrefix],
    ['median_key_short', KEY_MESSAGES.malformed],
  ])('answers 500 invalid_median_key for MEDIAN_KEY=%s with the docs message', async (key, message) => {
    const route = await useToolRoute({ key });
    const answer = await signedGet(route.url);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: { code: 'invalid_median_key', message } });
  });

  it('answers 404 off the route path', async () => {
    const route = await useToolRoute();
    const answer = await plainRequest(`${route.origin}/elsewhere`);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('not_found');
  });
});

describe('example route: server lifecycle', () => {
  it('close() is idempotent and frees the port', async () => {
    const route = await useToolRoute();
    await Promise.all([route.close(), route.close()]);
    await route.close();
    await expect(fetch(route.url)).rejects.toThrow();
  });

  it('rejects when the port is taken, and when aborted before listening', async () => {
    const route = await useToolRoute();
    await expect(startToolRouteServer({ port: route.port, tools: [] })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await expect(startToolRouteServer({ port: 0, tools: [] }, { signal: AbortSignal.abort() })).rejects.toBeDefined();
  });
});

describe('example route: signatures (SPEC §1.1)', () => {
  it.each([
    ['missing_signature', { signature: undefined }],
    ['malformed_signature', { signature: 't=abc,v1=zz' }],
    ['stale_timestamp', { timestamp: Date.now() - 301_000 }],
    ['invalid_signature', { secret: deriveToolSecret(OTHER_KEY) }],
  ])('answers 401 %s on GET and POST', async (code, sign) => {
    const route = await useToolRoute();
    for (const answer of [await signedGet(route.url, sign), await signedPost(route.url, toolCall('orderStatus'), sign)]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.message).not.toBe('');
    }
  });

  it('checks against the injected clock', async () => {
    const route = await useToolRoute({ now: () => 1_000_000 });
    expect((await signedGet(route.url, { timestamp: 1_000_000 + 300_000 })).status).toBe(200);
    expect((await signedGet(route.url)).body.error.code).toBe('stale_timestamp');
  });

  it('verifies with MEDIAN_TOOL_SECRET when set, even without MEDIAN_KEY', async () => {
    const hex = 'ab'.repeat(32);
    const route = await useToolRoute({ key: undefined, toolSecret: hex });
    expect((await signedGet(route.url, { secret: Buffer.from(hex, 'hex') })).status).toBe(200);
    expect((await signedGet(route.url)).body.error.code).toBe('invalid_signature');
  });
});

describe('example route: bodies and ops', () => {
  it.each([
    ['not JSON', 'not json'],
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['no tool', JSON.stringify({ toolCallId: 'call_1', input: {} })],
    ['a tool that is not a string', JSON.stringify({ tool: 5 })],
  ])('answers 400 invalid_body for %s', async (_name, body) => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_body');
  });

  it('answers 400 unknown_op for an op it does not know', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, { op: 'reindex' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('unknown_op');
  });

  it('answers 400 invalid_body for a body over the limit', async () => {
    const route = await useToolRoute({ maxBodyBytes: 100 });
    const answer = await signedPost(route.url, toolCall('orderStatus', { orderNumber: 'A'.repeat(200) }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_body');
  });

  it('answers 404 unknown_tool for a tool it does not have', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall('restartServer'));
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('unknown_tool');
  });

  it('answers diagnostics with {result}', async () => {
    const route = await useToolRoute({ diagnostics: () => ({ node: 'v20', tools: 7 }) });
    const answer = await signedPost(route.url, { op: 'diagnostics' });
    expect(answer).toMatchObject({ status: 200, body: { result: { node: 'v20', tools: 7 } } });
  });

  it('answers 200 diagnostics_unsupported when none are configured', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, { op: 'diagnostics' });
    expect(answer.status).toBe(200);
    expect(answer.body.error.code).toBe('diagnostics_unsupported');
  });

  it('answers 200 execution_failed when diagnostics throw', async () => {
    const route = await useToolRoute({
      diagnostics: async () => {
        throw new Error('disk unreadable');
      },
    });
    const answer = await signedPost(route.url, { op: 'diagnostics' });
    expect(answer).toMatchObject({ status: 200, body: { error: { code: 'execution_failed', message: 'disk unreadable' } } });
  });
});

describe('example route: one set of route messages', () => {
  it('answers with src/median’s ROUTE_MESSAGES, the set the proxy judges with', async () => {
    const route = await useToolRoute();
    expect((await plainRequest(route.url, { method: 'PUT' })).body.error.message).toBe(ROUTE_MESSAGES.methodNotAllowed('PUT'));
    expect((await plainRequest(route.url, { method: 'POST', body: '{}' })).body.error.message).toBe(ROUTE_MESSAGES.missingSignature);
    const noKey = await useToolRoute({ key: undefined });
    expect((await signedGet(noKey.url)).body.error.message).toBe(ROUTE_MESSAGES.missingSecret);
  });
});
