import { describe, expect, it } from 'vitest';
import { signBody } from '../../../src/median/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, TEST_SECRET, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

const OTHER_SECRET = new Uint8Array(32).fill(9);
const BODY = toolCallBody('orderStatus', { orderNumber: 'A1001' });
const NOW = Date.now();

async function useAnsweringTarget() {
  return useHttpServer((req, res) => {
    req.resume();
    req.once('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: { ok: true } }));
    });
  });
}

describe('signature outcomes', () => {
  it.each([
    { name: 'valid', header: signBody(TEST_SECRET, BODY, NOW), expected: 'valid' },
    { name: 'missing', header: undefined, expected: 'missing_signature' },
    { name: 'malformed', header: 't=abc,v1=zz', expected: 'malformed_signature' },
    { name: 'stale', header: signBody(TEST_SECRET, BODY, NOW - 300_001 - 60_000), expected: 'stale_timestamp' },
    { name: 'another key', header: signBody(OTHER_SECRET, BODY, NOW), expected: 'invalid_signature' },
  ])('records a $name signature on a tool call as $expected', async ({ header, expected }) => {
    const target = await useAnsweringTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });

    await send(`${proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header === undefined ? {} : { 'median-signature': header }) },
      body: BODY,
    });

    const [record] = await waitForRecords(1);
    expect(record?.signature).toBe(expected);
    expect(record?.kind).toBe('tool-call');
  });

  it('records every signature as unchecked without a secret', async () => {
    const target = await useAnsweringTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    await send(`${proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: { 'median-signature': signBody(OTHER_SECRET, BODY) },
      body: BODY,
    });

    const [record] = await waitForRecords(1);
    expect(record?.signature).toBe('unchecked');
  });

  it('checks a signed manifest read over the empty body', async () => {
    const target = await useAnsweringTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });

    await send(`${proxy.url}${ROUTE}`, { headers: { 'median-signature': signBody(TEST_SECRET, '') } });
    await send(`${proxy.url}${ROUTE}/`);

    const records = await waitForRecords(2);
    expect(records.map((r) => [r.kind, r.signature])).toEqual([
      ['manifest', 'valid'],
      ['manifest', 'missing_signature'],
    ]);
  });

  it('does not check requests outside the route', async () => {
    const target = await useAnsweringTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });

    await send(`${proxy.url}/api/other`, { method: 'POST', body: BODY });

    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ kind: 'other', signature: 'unchecked', toolCallId: '', tool: null });
  });

  it('checks with the new secret after setSecret (key rotation)', async () => {
    const target = await useAnsweringTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const signedWithNew = { 'median-signature': signBody(OTHER_SECRET, BODY) };

    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: signedWithNew, body: BODY });
    proxy.setSecret(OTHER_SECRET);
    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: signedWithNew, body: BODY });
    proxy.setSecret(undefined);
    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: signedWithNew, body: BODY });

    const records = await waitForRecords(3);
    expect(records.map((r) => r.signature)).toEqual(['invalid_signature', 'valid', 'unchecked']);
  });

  it('tells onRequestStarted the tool call before the answer, and records its fields', async () => {
    const target = await useAnsweringTarget();
    const { proxy, started, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });

    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: { 'median-signature': signBody(TEST_SECRET, BODY) }, body: BODY });

    const [record] = await waitForRecords(1);
    expect(started).toEqual([
      { id: record?.id, method: 'POST', path: ROUTE, toolCallId: `call_${'a'.repeat(32)}`, tool: 'orderStatus' },
    ]);
    expect(record).toMatchObject({
      toolCallId: `call_${'a'.repeat(32)}`,
      tool: 'orderStatus',
      conversationId: 'conv_1',
      risk: 'low',
      replayOf: null,
    });
    expect(record?.id).toMatch(/^rec_[0-9a-f]{24}$/);
    expect(Date.parse(record?.receivedAt ?? '')).not.toBeNaN();
  });
});
