import { describe, expect, it, vi } from 'vitest';
import { useRawAnswerServer } from '../../helpers/use-raw-answer-server.js';
import { ROUTE, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

const BODY = '{"result":{"status":"shipped"}}';
const ok = (extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\n${extra}\r\n${BODY}`;
const call = (url: string, method = 'POST') => send(`${url}${ROUTE}`, method === 'POST' ? { method, body: toolCallBody('orderStatus', { orderNumber: 'A-1' }) } : { method });
const errorCode = (body: Buffer) => (JSON.parse(body.toString()) as { error: { code: string } }).error.code;

describe('the dev server answer, framed', () => {
  it('a chunked answer with extensions and trailers is relayed whole, and the connection is kept', async () => {
    const chunked = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n' + '5;name=value\r\n{"res\r\n' + `${(BODY.length - 5).toString(16)}\r\n${BODY.slice(5)}\r\n` + '0\r\nx-checksum: 1\r\n\r\n';
    const target = await useRawAnswerServer(() => ({ bytes: chunked }));
    const under = await useRecordingProxy({ target: target.url });

    const first = await call(under.proxy.url);
    const second = await call(under.proxy.url);

    expect([first.status, first.body.toString(), second.body.toString()]).toEqual([200, BODY, BODY]);
    expect(target.connections).toHaveLength(1);
    const records = await under.waitForRecords(2);
    expect(records[0]).toMatchObject({ response: { status: 200, body: BODY }, error: null });
  });

  it('an answer without a length ends when the connection closes', async () => {
    const target = await useRawAnswerServer(() => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${BODY}`, close: true }));
    const under = await useRecordingProxy({ target: target.url });

    const answer = await call(under.proxy.url);

    expect([answer.status, answer.body.toString()]).toEqual([200, BODY]);
    const [record] = await under.waitForRecords(1);
    expect(record).toMatchObject({ response: { status: 200, body: BODY }, error: null });
  });

  it('1xx answers before the answer are skipped', async () => {
    const target = await useRawAnswerServer(() => ({ bytes: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n${ok()}` }));
    const under = await useRecordingProxy({ target: target.url });

    const answer = await call(under.proxy.url);

    expect([answer.status, answer.body.toString()]).toEqual([200, BODY]);
  });

  it.each([
    ['HEAD', 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n'],
    ['GET', 'HTTP/1.1 204 No Content\r\n\r\n'],
    ['GET', 'HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n'],
  ])('a %s answered %j has no body, and the connection serves the next call', async (method, head) => {
    const target = await useRawAnswerServer((index) => ({ bytes: index === 0 ? head : ok() }));
    const under = await useRecordingProxy({ target: target.url });

    const first = await call(under.proxy.url, method);
    const second = await call(under.proxy.url);

    expect(first.body.length).toBe(0);
    expect(second.body.toString()).toBe(BODY);
    expect(target.connections).toHaveLength(1);
  });

  // The proxy's HTTP client before (Node's http.request, llhttp) refused these too with 502 target_unreachable, except
  // three it read otherwise: a non-chunked coding (read until close), HTTP/2.0 (accepted), a 101 (the call hung).
  it.each([
    ['two equal Content-Lengths', `HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 5\r\n\r\nabcde`],
    ['two different Content-Lengths', `HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 3\r\n\r\nabcde`],
    ['Content-Length and Transfer-Encoding', `HTTP/1.1 200 OK\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n`],
    ['a Content-Length that is no number', `HTTP/1.1 200 OK\r\ncontent-length: 5, 5\r\n\r\nabcde`],
    ['a transfer coding that is not chunked', `HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nabcde`],
    ['obs-fold', `HTTP/1.1 200 OK\r\nx-a: b\r\n c\r\ncontent-length: 0\r\n\r\n`],
    ['a bare CR in a header', `HTTP/1.1 200 OK\r\nx-a: b\rc\r\ncontent-length: 0\r\n\r\n`],
    ['a bare LF line end', `HTTP/1.1 200 OK\nx-a: b\r\ncontent-length: 0\r\n\r\n`],
    ['a space before the colon', `HTTP/1.1 200 OK\r\ncontent-length : 0\r\n\r\n`],
    ['a head over 16 KiB', `HTTP/1.1 200 OK\r\nx-big: ${'v'.repeat(17_000)}\r\ncontent-length: 0\r\n\r\n`],
    ['an invalid status line', `HTTP/1.1 20 OK\r\ncontent-length: 0\r\n\r\n`],
    ['an unknown version', `HTTP/2.0 200 OK\r\ncontent-length: 0\r\n\r\n`],
    ['a 101 to a plain request', `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n`],
  ])('refuses an answer with %s: 502 target_unreachable, recorded, and the next call is served', async (_label, raw) => {
    const target = await useRawAnswerServer((index) => ({ bytes: index === 0 ? raw : ok() }));
    const under = await useRecordingProxy({ target: target.url });

    const refused = await call(under.proxy.url);
    const next = await call(under.proxy.url);

    expect([refused.status, errorCode(refused.body)]).toEqual([502, 'target_unreachable']);
    expect(next.body.toString()).toBe(BODY);
    // The refused answer's connection is never used again.
    expect(target.connections).toHaveLength(2);
    const [record] = await under.waitForRecords(2);
    expect(record).toMatchObject({ response: null, error: { code: 'target_unreachable' }, verdict: { kind: 'not-answering' } });
  });

  it.each([
    ['a Content-Length longer than the body, then a close', { bytes: `HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"result":`, close: true }],
    ['a chunk longer than its size', { bytes: `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"result":1}\r\n0\r\n\r\n`, close: false }],
    ['a malformed chunk size', { bytes: `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{"result":\r\nzz\r\n`, close: false }],
    ['a chunked answer cut before its last chunk', { bytes: `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\na\r\n{"result":\r\n`, close: true }],
  ])('cuts the caller off on %s, and records target_reset', async (_label, reply) => {
    const target = await useRawAnswerServer(() => reply);
    const under = await useRecordingProxy({ target: target.url });

    await expect(call(under.proxy.url)).rejects.toThrow();

    const [record] = await under.waitForRecords(1);
    expect(record).toMatchObject({ response: { status: 200 }, error: { code: 'target_reset' }, verdict: { kind: 'not-answering' } });
  });

  // Before, Node's client cut the first call off (socket hang up) and left an idle connection's stray bytes unread.
  it('bytes past a Content-Length never become the next call’s answer', async () => {
    const smuggled = `HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{"result":1}HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nsmuggled!`;
    const target = await useRawAnswerServer((index) => ({ bytes: index === 0 ? smuggled : ok() }));
    const under = await useRecordingProxy({ target: target.url });

    const first = await call(under.proxy.url);
    const second = await call(under.proxy.url);

    expect(first.body.toString()).toBe('{"result":1');
    expect(second.body.toString()).toBe(BODY);
    expect(target.connections).toHaveLength(2);
  });

  it('bytes on an idle kept connection close it: the next call gets its own answer', async () => {
    const target = await useRawAnswerServer(() => ({ bytes: ok() }));
    const under = await useRecordingProxy({ target: target.url });
    await call(under.proxy.url);

    // An answer nobody asked for, sent while the connection is idle in the pool.
    target.connections[0]!.write(`HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nsmuggled!`);
    await vi.waitFor(() => expect(target.connections[0]!.destroyed || target.connections[0]!.readableEnded).toBe(true));
    const next = await call(under.proxy.url);

    expect(next.body.toString()).toBe(BODY);
    expect(target.connections).toHaveLength(2);
  });
});
