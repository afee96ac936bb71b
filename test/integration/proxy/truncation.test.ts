import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody } from '../../../src/median/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, TEST_SECRET, send, useRecordingProxy } from './proxy-harness.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Answers with `answerBytes` bytes of "y" and the hash of what it received in a header. */
async function useHashingTarget(answerBytes: number) {
  return useHttpServer(async (req, res) => {
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'text/plain', 'x-received-sha256': sha256(body) });
    res.end(Buffer.alloc(answerBytes, 'y'));
  });
}

describe('bodies over the recording limit', () => {
  it.each([
    { name: 'the default 1 MiB', limit: undefined, kept: 1024 * 1024, requestBytes: 1024 * 1024 + 300_000, answerBytes: 1024 * 1024 + 5 },
    { name: 'a shortened 1,000 bytes', limit: 1_000, kept: 1_000, requestBytes: 5_000, answerBytes: 1_001 },
  ])('streams them through whole and records them cut at $name', async ({ limit, kept, requestBytes, answerBytes }) => {
    const target = await useHashingTarget(answerBytes);
    const { proxy, waitForRecords } = await useRecordingProxy({
      target: target.url,
      secret: TEST_SECRET,
      ...(limit === undefined ? {} : { limits: { recordBodyBytes: limit } }),
    });
    const body = Buffer.alloc(requestBytes, 'x');

    const answer = await send(`${proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: { 'median-signature': signBody(TEST_SECRET, body) },
      body,
    });

    expect(answer.headers['x-received-sha256']).toBe(sha256(body));
    expect(answer.body.length).toBe(answerBytes);
    const [record] = await waitForRecords(1);
    expect(record?.request).toMatchObject({ truncated: true, size: requestBytes });
    expect(record?.request.body.length).toBe(kept);
    expect(record?.response).toMatchObject({ truncated: true, size: answerBytes });
    expect(record?.response?.body.length).toBe(kept);
    // A cut body is verified over the stream as it passed: its real outcome, not `unchecked`.
    expect(record?.signature).toBe('valid');
    // Over Median's 100 KB either way.
    expect(record?.verdict.kind).toBe('not-answering');
  });

  it.each([
    ['a byte changed past the kept part', (body: Buffer) => Buffer.concat([body.subarray(0, 4_000), Buffer.from('z'), body.subarray(4_001)]), 'invalid_signature'],
    ['a byte changed in the kept part', (body: Buffer) => Buffer.concat([Buffer.from('z'), body.subarray(1)]), 'invalid_signature'],
    ['the body as signed', (body: Buffer) => body, 'valid'],
  ])('gives a body over the limit its real signature outcome: %s', async (_name, tamper, outcome) => {
    const target = await useHashingTarget(10);
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET, limits: { recordBodyBytes: 1_000 } });
    const signed = Buffer.alloc(5_000, 'x');
    await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: { 'median-signature': signBody(TEST_SECRET, signed) }, body: tamper(signed) });
    const [record] = await waitForRecords(1);
    expect(record?.request.truncated).toBe(true);
    expect(record?.signature).toBe(outcome);
  });

  it('records bodies at or under the limit whole, without a truncated flag', async () => {
    const target = await useHashingTarget(1_000);
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, limits: { recordBodyBytes: 1_000 } });

    await send(`${proxy.url}/x`, { method: 'POST', body: Buffer.alloc(1_000, 'x') });

    const [record] = await waitForRecords(1);
    expect(record?.request.truncated).toBeUndefined();
    expect(record?.request.body.length).toBe(1_000);
    expect(record?.response?.truncated).toBeUndefined();
    expect(record?.response?.size).toBe(1_000);
  });
});
