import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../../src/median/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, TEST_SECRET, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

/** A dev server that reports what reached it: body hash, signature check, headers. */
async function useInspectingTarget() {
  return useHttpServer(async (req, res) => {
    const body = await readBody(req);
    const answer = {
      result: {
        sha256: createHash('sha256').update(body).digest('hex'),
        size: body.length,
        signature: verifySignature(req.headers['median-signature'], body, TEST_SECRET),
        method: req.method,
        url: req.url,
        headers: req.headers,
      },
    };
    res.writeHead(200, { 'content-type': 'application/json', 'x-from-target': 'yes' });
    res.end(JSON.stringify(answer));
  });
}

type Inspected = {
  result: {
    sha256: string;
    size: number;
    signature: string;
    method: string;
    url: string;
    headers: Record<string, string>;
  };
};

describe('forwarding', () => {
  it('delivers the body byte for byte, so the route verifies the signature through the proxy', async () => {
    const target = await useInspectingTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    // Odd bytes on purpose: multi-byte UTF-8, a BOM-like prefix, whitespace the route must not lose.
    const body = `\uFEFF ${toolCallBody('orderStatus', { note: 'über 😀 \r\n\t' })}  `;
    const bytes = Buffer.from(body, 'utf8');

    const answer = await send(`${proxy.url}${ROUTE}?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'median-signature': signBody(TEST_SECRET, bytes) },
      body: bytes,
    });

    const seen = (JSON.parse(answer.body.toString()) as Inspected).result;
    expect(answer.status).toBe(200);
    expect(answer.headers['x-from-target']).toBe('yes');
    expect(seen.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(seen.signature).toBe('valid');
    expect(seen.url).toBe(`${ROUTE}?x=1`);
    const [record] = await waitForRecords(1);
    expect(record?.signature).toBe('valid');
    expect(record?.request.body).toBe(body);
    expect(record?.request.size).toBe(bytes.length);
    expect(record?.request.path).toBe(`${ROUTE}?x=1`);
  });

  it('streams a chunked body of random bytes unchanged', async () => {
    const target = await useInspectingTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });
    const parts = [randomBytes(10_000), randomBytes(1), randomBytes(70_000)];
    const all = Buffer.concat(parts);

    const answer = await send(`${proxy.url}/upload`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      body: parts,
    });

    const seen = (JSON.parse(answer.body.toString()) as Inspected).result;
    expect(seen.sha256).toBe(createHash('sha256').update(all).digest('hex'));
    expect(seen.size).toBe(all.length);
    const [record] = await waitForRecords(1);
    expect(record?.kind).toBe('other');
    expect(record?.request.size).toBe(all.length);
  });

  it('drops hop-by-hop headers and keeps every other header as sent', async () => {
    const target = await useInspectingTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const body = toolCallBody('orderStatus', { orderNumber: 'A1001' });
    const signature = signBody(TEST_SECRET, body);

    const answer = await send(`${proxy.url}${ROUTE}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'median-signature': signature,
        'x-custom': 'kept',
        'user-agent': 'median-test',
        connection: 'keep-alive, x-private-hop',
        'x-private-hop': 'dropped',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'proxy-authorization': 'Basic c2VjcmV0OnNlY3JldA==',
      },
      body,
    });

    const headers = (JSON.parse(answer.body.toString()) as Inspected).result.headers;
    expect(headers['median-signature']).toBe(signature);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(headers['x-custom']).toBe('kept');
    expect(headers['user-agent']).toBe('median-test');
    expect(headers['host']).toBe(new URL(proxy.url).host);
    for (const gone of ['x-private-hop', 'keep-alive', 'te', 'proxy-authorization', 'x-forwarded-for']) {
      expect(headers, gone).not.toHaveProperty(gone);
    }
    // Our keep-alive agent's own connection header, not the caller's list.
    expect(headers['connection']).toBe('keep-alive');
    const [record] = await waitForRecords(1);
    // The record keeps what arrived, with the credential masked.
    expect(record?.request.headers['x-private-hop']).toBe('dropped');
    expect(record?.request.headers['proxy-authorization']).toBe('Basic …');
  });

  it('masks the Bearer key of a connect in the record, and marks its signature unchecked', async () => {
    const target = await useInspectingTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const key = `median_key_${'A1b2'.repeat(10)}`;

    const answer = await send(`${proxy.url}${ROUTE}`, { headers: { authorization: `Bearer ${key}` } });

    // The route itself gets the key.
    expect((JSON.parse(answer.body.toString()) as Inspected).result.headers['authorization']).toBe(`Bearer ${key}`);
    const [record] = await waitForRecords(1);
    expect(record?.kind).toBe('connect');
    expect(record?.signature).toBe('unchecked');
    expect(record?.request.headers['authorization']).toBe('Bearer …A1b2');
    expect(JSON.stringify(record?.request)).not.toContain(key);
  });

  it('reaches a dev server named localhost that listens on 127.0.0.1', async () => {
    const target = await useInspectingTarget();
    const { proxy } = await useRecordingProxy({ target: `http://localhost:${target.port}` });

    const answer = await send(`${proxy.url}/`);

    expect(answer.status).toBe(200);
  });

  it('sends new requests to another dev server after setTarget', async () => {
    const first = await useHttpServer((_req, res) => res.end('first'));
    const second = await useHttpServer((_req, res) => res.end('second'));
    const { proxy } = await useRecordingProxy({ target: first.url });

    expect((await send(`${proxy.url}/`)).body.toString()).toBe('first');
    proxy.setTarget(second.url);
    expect((await send(`${proxy.url}/`)).body.toString()).toBe('second');
  });

  it('relays the answer as the dev server sent it: status, duplicate headers, body', async () => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.writeHead(418, 'Short And Stout', [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['X-Mixed-Case', 'v'],
      ].flat());
      res.end('teapot');
    });
    const { proxy } = await useRecordingProxy({ target: target.url });

    const answer = await send(`${proxy.url}/tea`);

    expect(answer.status).toBe(418);
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(answer.headers['x-mixed-case']).toBe('v');
    expect(answer.body.toString()).toBe('teapot');
  });
});
