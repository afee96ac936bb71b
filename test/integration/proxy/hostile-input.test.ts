import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { signBody } from '../../../src/median/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, TEST_SECRET, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

/** A dev server that answers every request with the sha256 and size of the body it got. */
async function useHashingTarget() {
  return useHttpServer(async (req, res) => {
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ result: { sha256: createHash('sha256').update(body).digest('hex'), size: body.length } }));
  });
}

/** Raw bytes to the proxy; resolves with everything it answered before closing (or after `ms`). */
function rawExchange(port: number, chunks: string[], options: { waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 3_000);
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(answer);
      else reject(error);
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

async function expectStillServing(url: string) {
  const body = toolCallBody('orderStatus', { orderNumber: 'A-1' });
  const answer = await send(`${url}${ROUTE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'median-signature': signBody(TEST_SECRET, body) },
    body,
  });
  expect(answer.status).toBe(200);
}

describe('hostile and broken input through the proxy', () => {
  it('a body that is not JSON is forwarded untouched and recorded as a tool call with no tool', async () => {
    const target = await useHashingTarget();
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const body = '{"tool": not json at all \u0000\u00ff';
    const answer = await send(`${under.proxy.url}${ROUTE}`, { method: 'POST', headers: { 'median-signature': signBody(TEST_SECRET, body) }, body });
    expect(JSON.parse(answer.body.toString()).result.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    const [record] = await under.waitForRecords(1);
    expect(record).toMatchObject({ kind: 'tool-call', tool: null, signature: 'valid' });
  });

  it('a 3 MB body reaches the dev server whole and is recorded cut at 1 MB', async () => {
    const target = await useHashingTarget();
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const big = JSON.stringify({ tool: 'importCatalog', toolCallId: 'call_big', input: { blob: 'x'.repeat(3 * 1024 * 1024) }, context: {} });
    const answer = await send(`${under.proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'median-signature': signBody(TEST_SECRET, big) },
      body: big,
    });
    const seen = JSON.parse(answer.body.toString()).result;
    expect(seen).toEqual({ sha256: createHash('sha256').update(big).digest('hex'), size: Buffer.byteLength(big) });
    const [record] = await under.waitForRecords(1);
    expect(record!.request.truncated).toBe(true);
    expect(record!.request.size).toBe(Buffer.byteLength(big));
    expect(Buffer.byteLength(record!.request.body)).toBeLessThanOrEqual(1024 * 1024);
    await expectStillServing(under.proxy.url);
  });

  it('slowloris headers are cut off at the headers timeout, while other callers are served', async () => {
    const target = await useHashingTarget();
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET, limits: { headersTimeoutMs: 300, requestTimeoutMs: 1_000 } });
    const started = Date.now();
    const slow = rawExchange(under.proxy.port, ['POST /api/median HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'], { waitMs: 5_000 });
    await expectStillServing(under.proxy.url);
    const answer = await slow;
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    await vi.waitFor(() => expect(under.records.some((r) => r.error?.code === 'request_timeout')).toBe(true));
  });

  it.each([
    ['Content-Length and Transfer-Encoding together', 'POST /api/median HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['two different Content-Lengths', 'POST /api/median HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 7\r\n\r\nabcd'],
    ['a bare LF in a header', 'POST /api/median HTTP/1.1\r\nHost: x\nX-A: b\r\nContent-Length: 0\r\n\r\n'],
    ['a malformed chunk size', 'POST /api/median HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'],
  ])('request smuggling shape refused cleanly: %s', async (_label, raw) => {
    const target = await useHashingTarget();
    let reachedTarget = 0;
    target.server.on('request', () => (reachedTarget += 1));
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const answer = await rawExchange(under.proxy.port, [raw]);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(reachedTarget).toBe(0);
    // Still on record: refused before any handler, or (a bad chunk, after the headers) by its exchange.
    const [record] = await under.waitForRecords(1);
    expect(record!.verdict.kind).toBe('not-answering');
    expect(record!.request.method).toBe('POST');
    if (!raw.includes('zz')) expect(record).toMatchObject({ kind: 'other', response: { status: 400 }, error: { code: 'bad_request' } });
    await expectStillServing(under.proxy.url);
  });

  it('an absurd number of headers is refused with 431, and the proxy keeps serving', async () => {
    const target = await useHashingTarget();
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const headers = Array.from({ length: 5_000 }, (_, i) => `X-H${i}: ${'v'.repeat(10)}\r\n`).join('');
    const answer = await rawExchange(under.proxy.port, [`GET /api/median HTTP/1.1\r\nHost: x\r\n${headers}\r\n`]);
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
    const [record] = await under.waitForRecords(1);
    expect(record).toMatchObject({ response: { status: 431 }, error: { code: 'headers_too_large' } });
    await expectStillServing(under.proxy.url);
  });

  it('every signature outcome is recorded and forwarded, never refused by the proxy', async () => {
    const target = await useHashingTarget();
    const under = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const body = toolCallBody('orderStatus', { orderNumber: 'A-1' });
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'missing_signature'],
      ['garbage', 'malformed_signature'],
      [signBody(TEST_SECRET, body, Date.now() - 400_000), 'stale_timestamp'],
      [signBody(new Uint8Array(32).fill(9), body), 'invalid_signature'],
      [signBody(TEST_SECRET, body), 'valid'],
    ];
    for (const [header] of cases) {
      const answer = await send(`${under.proxy.url}${ROUTE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(header ? { 'median-signature': header } : {}) },
        body,
      });
      expect(answer.status).toBe(200);
    }
    const records = await under.waitForRecords(cases.length);
    expect(records.map((r) => r.signature)).toEqual(cases.map(([, outcome]) => outcome));
  });
});
