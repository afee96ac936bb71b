import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { resolveToolSecret, signBody } from '../../../src/median/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

const KEY = `median_key_${'Xy12'.repeat(9)}`;
const SECRET = resolveToolSecret({ medianKey: KEY });

async function useExampleRoute() {
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools({ msPerSecond: 1 }), path: ROUTE }),
    (r) => r.close(),
  );
  return useRecordingProxy({ target: route.origin, secret: SECRET });
}

function signedPost(body: string) {
  return { method: 'POST', headers: { 'content-type': 'application/json', 'median-signature': signBody(SECRET, body) }, body };
}

function call(tool: string, input: Record<string, unknown>, visitor: Record<string, unknown> = { verified: true, externalId: 'u_1' }) {
  return JSON.stringify({
    tool,
    toolCallId: `call_${'b'.repeat(32)}`,
    input,
    context: { conversationId: 'conv_9', risk: 'low', visitor },
  });
}

describe('verdicts from the example route, through the proxy', () => {
  it.each([
    { tool: 'orderStatus', input: { orderNumber: 'A1001' }, kind: 'answered', status: 200 },
    { tool: 'lookupCustomer', input: {}, visitor: { verified: false }, kind: 'refused', status: 200 },
    { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 900 }, kind: 'unknown-outcome', status: 200 },
    { tool: 'chargeCard', input: { orderNumber: 'A1', amount: 5 }, kind: 'threw', status: 200 },
    { tool: 'orderStatus', input: {}, kind: 'invalid-input', status: 400 },
    { tool: 'noSuchTool', input: {}, kind: 'not-answering', status: 404 },
    { tool: 'exportHistory', input: { size: 'huge' }, kind: 'not-answering', status: 200 },
  ])('$tool $input → $kind', async ({ tool, input, visitor, kind, status }) => {
    const { proxy, waitForRecords } = await useExampleRoute();

    const answer = await send(`${proxy.url}${ROUTE}`, signedPost(call(tool, input, visitor)));

    expect(answer.status).toBe(status);
    const [record] = await waitForRecords(1);
    expect(record?.verdict.kind).toBe(kind);
    expect(record?.response?.status).toBe(status);
    expect(record?.response?.body).toBe(answer.body.toString());
    expect(record?.signature).toBe('valid');
    expect(record?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('judges a call with a bad signature as not answering (the route says 401)', async () => {
    const { proxy, waitForRecords } = await useExampleRoute();
    const body = call('orderStatus', { orderNumber: 'A1' });

    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: { 'median-signature': signBody(new Uint8Array(32), body) }, body });

    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ signature: 'invalid_signature', verdict: { kind: 'not-answering' }, response: { status: 401 } });
  });

  it('judges a manifest read like a sync, and diagnostics like a call', async () => {
    const { proxy, waitForRecords } = await useExampleRoute();

    await send(`${proxy.url}${ROUTE}`, { headers: { 'median-signature': signBody(SECRET, '') } });
    await send(`${proxy.url}${ROUTE}`, signedPost('{"op":"diagnostics"}'));

    const [manifest, diagnostics] = await waitForRecords(2);
    expect(manifest).toMatchObject({ kind: 'manifest', signature: 'valid', verdict: { kind: 'answered' } });
    expect(manifest?.verdict.agentSees).toContain('orderStatus');
    expect(diagnostics).toMatchObject({ kind: 'diagnostics', signature: 'valid', verdict: { kind: 'answered' } });
  });
});

describe('verdicts from hand-made answers', () => {
  it.each([
    {
      name: 'a redirect',
      answer: { status: 307, headers: { location: '/elsewhere' }, body: '' },
      kind: 'not-answering',
    },
    { name: 'an HTML page', answer: { status: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' }, kind: 'not-answering' },
    { name: 'a 500', answer: { status: 500, headers: {}, body: '{"error":{"code":"boom","message":"it broke"}}' }, kind: 'not-answering' },
  ])('$name → $kind', async ({ answer, kind }) => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    const got = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('orderStatus', {}) });

    expect(got.status).toBe(answer.status);
    const [record] = await waitForRecords(1);
    expect(record?.verdict.kind).toBe(kind);
    expect(record?.verdict.callError).toBeTruthy();
  });

  it('reads a gzip answer as the route wrote it, and relays the gzip bytes unchanged', async () => {
    const json = JSON.stringify({ result: { orderNumber: 'A1', status: 'shipped' } });
    const zipped = gzipSync(json);
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(zipped);
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    const got = await send(`${proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: { 'accept-encoding': 'gzip' },
      body: toolCallBody('orderStatus', {}),
    });

    expect(got.body.equals(zipped)).toBe(true);
    const [record] = await waitForRecords(1);
    expect(record?.response?.body).toBe(json);
    expect(record?.response?.size).toBe(Buffer.byteLength(json));
    expect(record?.verdict).toMatchObject({ kind: 'answered', agentSees: '{"orderNumber":"A1","status":"shipped"}' });
  });
});

describe('an approved call that fails at the route, through the proxy', () => {
  function approved(tool: string, input: Record<string, unknown>, approvedBy: string) {
    return JSON.stringify({ tool, toolCallId: 'apr_0123456789abcdef01234567', input, context: { conversationId: 'conv_9', risk: 'high', visitor: { verified: false }, approvedBy } });
  }

  it.each([
    { tool: 'chargeCard', input: { orderNumber: 'A1', amount: 5 }, kind: 'threw', thread: 'chargeCard did not run: The card processor is offline. Nothing was charged.' },
    { tool: 'refundOrder', input: { orderNumber: 'A1' }, kind: 'invalid-input', thread: 'refundOrder did not run: The endpoint answered 400. invalid_input: amount is required.' },
  ])('$kind is recorded as what the thread shows', async ({ tool, input, kind, thread }) => {
    const { proxy, waitForRecords } = await useExampleRoute();
    await send(`${proxy.url}${ROUTE}`, signedPost(approved(tool, input, 'Dana Reyes')));
    const [record] = await waitForRecords(1);
    expect(record?.verdict).toMatchObject({ kind, didNotRun: thread, agentSees: thread });
    expect(record?.verdict.warnings.map((w) => w.code)).toContain('approved_call_failed');
  });

  it('a test from the CLI is no approval: its failure keeps the normal verdict', async () => {
    const { proxy, waitForRecords } = await useExampleRoute();
    await send(`${proxy.url}${ROUTE}`, signedPost(approved('chargeCard', { orderNumber: 'A1', amount: 5 }, 'A test from the CLI')));
    const [record] = await waitForRecords(1);
    expect(record?.verdict.kind).toBe('threw');
    expect(record?.verdict.didNotRun).toBeUndefined();
  });
});
