import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useRawAnswerServer } from '../../helpers/use-raw-answer-server.js';
import { useRecordingProxy } from './proxy-harness.js';

/** Sends raw bytes to the proxy and waits for the first bytes of its answer. */
function rawCall(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.once('data', (chunk) => {
      resolve(chunk.toString('latin1'));
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';

describe('the request the dev server gets', () => {
  it.each([
    ['a POST without a body', 'POST /api/median HTTP/1.1\r\nHost: shop.test\r\n\r\n', ['POST /api/median HTTP/1.1', 'host: shop.test', 'Connection: keep-alive', 'Content-Length: 0'], 1],
    ['a DELETE without a length', 'DELETE /api/x HTTP/1.1\r\nHost: shop.test\r\n\r\n', ['DELETE /api/x HTTP/1.1', 'content-length: 0'], 1],
    ['a GET', 'GET /a/../b?q=1 HTTP/1.1\r\nHost: shop.test\r\nX-Mine: 1\r\n\r\n', ['GET /b?q=1 HTTP/1.1', 'x-mine: 1', 'Connection: keep-alive'], 0],
    ['an HTTP/1.0 request without Host', 'GET /api/median HTTP/1.0\r\n\r\n', ['GET /api/median HTTP/1.1', 'Host: 127.0.0.1:PORT'], 0],
  ])('%s: as Node’s http.request sent it', async (_label, raw, lines, framingLines) => {
    const target = await useRawAnswerServer(() => ({ bytes: OK }));
    const under = await useRecordingProxy({ target: target.url });

    const answer = await rawCall(under.proxy.port, raw);

    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    const port = new URL(target.url).port;
    const got = target.heads[0]!.split('\r\n');
    for (const line of lines) expect(got).toContain(line.replace('PORT', port));
    // One way to frame the body at most: never a length and a coding, never two lengths.
    expect(got.filter((line) => /^(content-length|transfer-encoding):/i.test(line))).toHaveLength(framingLines);
  });
});
