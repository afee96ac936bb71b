import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { answerHeadersOf } from '../../../src/proxy/answer-headers.js';
import { useRawAnswerServer } from '../../helpers/use-raw-answer-server.js';

/** What Node's own client makes of these header lines: its rawHeaders and headers. */
async function nodeReads(lines: string[]): Promise<{ rawHeaders: string[]; headers: Record<string, unknown> }> {
  const server = await useRawAnswerServer(() => ({ bytes: `HTTP/1.1 200 OK\r\n${lines.join('\r\n')}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n` }));
  return new Promise((resolve, reject) => {
    get(server.url, (res) => {
      res.resume();
      resolve({ rawHeaders: res.rawHeaders, headers: { ...res.headers } });
    }).on('error', reject);
  });
}

describe('the answer headers object', () => {
  it.each([
    ['repeated fields joined, set-cookie kept apart', ['Set-Cookie: a=1', 'set-cookie: b=2', 'X-List: 1', 'x-list: 2', 'Vary: a', 'VARY: b']],
    ['fields of which the first wins', ['Content-Type: text/plain', 'content-type: text/html', 'Location: /a', 'Location: /b', 'ETag: "1"', 'ETag: "2"', 'Server: a', 'Server: b', 'Age: 1', 'Age: 2']],
    ['cookie joined with a semicolon', ['Cookie: a=1', 'Cookie: b=2']],
    ['empty values and odd names', ['X-Empty:', "X-Odd!#$%&'*+-.^_`|~: v", '__proto__: p', 'constructor: c']],
  ])('is the one Node builds: %s', async (_label, lines) => {
    const node = await nodeReads(lines);
    expect({ ...answerHeadersOf(node.rawHeaders) }).toEqual(node.headers);
  });
});
