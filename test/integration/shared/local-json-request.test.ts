import { describe, expect, it } from 'vitest';
import { requestLocalJson } from '../../../src/shared/local-json-request.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useRawAnswerServer } from '../../helpers/use-raw-answer-server.js';
import { refusedPort } from '../../helpers/refused-port.js';

describe('requestLocalJson: a small JSON document from a local API, never a throw', () => {
  it('answers with the status and the parsed body; a body that is not JSON answers with no body', async () => {
    const server = await useHttpServer((req, res) => {
      if (req.url === '/text') {
        res.writeHead(503).end('not ready');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"hostname":"abc.trycloudflare.com"}');
    });
    expect(await requestLocalJson(`${server.url}/quicktunnel`)).toEqual({ kind: 'answered', status: 200, body: { hostname: 'abc.trycloudflare.com' } });
    expect(await requestLocalJson(`${server.url}/text`)).toEqual({ kind: 'answered', status: 503, body: undefined });
  });

  it('sends the method, the headers and the JSON text with its length, on a connection closed after the answer', async () => {
    let seen: { method?: string; headers: Record<string, unknown>; body: string } | undefined;
    const server = await useHttpServer((req, res) => {
      void readBody(req).then((body) => {
        seen = { method: req.method, headers: req.headers, body: body.toString('utf8') };
        res.writeHead(201).end('{"id":"ap_1"}');
      });
    });
    const answer = await requestLocalJson(`${server.url}/v1/emulator/approvals`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{"decision":"approve"}' });
    expect(answer).toEqual({ kind: 'answered', status: 201, body: { id: 'ap_1' } });
    expect(seen?.method).toBe('POST');
    expect(seen?.body).toBe('{"decision":"approve"}');
    expect(seen?.headers['content-length']).toBe('22');
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers.authorization).toBe('Bearer k');
    expect(seen?.headers.connection).toBe('close');
  });

  it('is unreachable with the socket’s code: refused, idle past its timeout, cut mid-body, a bad URL, aborted', async () => {
    expect(await requestLocalJson(`http://127.0.0.1:${await refusedPort()}/`)).toEqual({ kind: 'unreachable', errorCode: 'ECONNREFUSED' });
    expect(await requestLocalJson('not a url')).toEqual({ kind: 'unreachable', errorCode: 'ERR_INVALID_URL' });
    const silent = await useHttpServer((req, res) => {
      if (req.url === '/head') return; // never answers
      res.writeHead(200);
      res.write('{"par'); // and never ends
    });
    expect(await requestLocalJson(`${silent.url}/head`, { timeoutMs: 80 })).toEqual({ kind: 'unreachable', errorCode: 'ETIMEDOUT' });
    expect(await requestLocalJson(`${silent.url}/body`, { timeoutMs: 80 })).toEqual({ kind: 'unreachable', errorCode: 'ETIMEDOUT' });
    const raw = await useRawAnswerServer(() => ({ bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut":', close: true }));
    expect(await requestLocalJson(raw.url)).toEqual({ kind: 'unreachable', errorCode: 'ECONNRESET' });
    const abort = new AbortController();
    const pending = requestLocalJson(`${silent.url}/head`, { signal: abort.signal });
    setImmediate(() => abort.abort());
    expect(await pending).toEqual({ kind: 'unreachable', errorCode: 'AbortError' });
  });

  it('keeps at most 1 MiB of a body: a longer one answers with no body (what is kept is not whole JSON)', async () => {
    const huge = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const server = await useHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(huge);
    });
    expect(await requestLocalJson(server.url)).toEqual({ kind: 'answered', status: 200, body: undefined });
  });
});
