import { globalAgent } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { httpFetch, type HttpFetch } from '../../../src/shared/http-fetch.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useRawAnswerServer } from '../../helpers/use-raw-answer-server.js';
import { refusedPort } from '../../helpers/refused-port.js';

/** What an answer reads as, the same way for httpFetch and fetch. */
async function readAnswer(send: HttpFetch, url: string, init?: Parameters<HttpFetch>[1]) {
  const answer = await send(url, init);
  return { status: answer.status, ok: answer.ok, type: answer.headers.get('Content-Type'), multi: answer.headers.get('x-multi'), text: await answer.text() };
}

describe('httpFetch: fetch’s answers with Node’s own HTTP client', () => {
  it('answers as fetch does: status, headers (repeated ones joined), UTF-8 text with its BOM dropped and bad bytes replaced, redirects not followed', async () => {
    const server = await useHttpServer((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/elsewhere' }).end('moved');
        return;
      }
      res.setHeader('x-multi', ['a', 'b']);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo '), Buffer.from([0xff, 0xfe]), Buffer.from(' ✓')]));
    });
    // `fetch` itself fits HttpFetch: the daemon's callers take either.
    const asFetch: HttpFetch = (url, init) => fetch(url, init);
    for (const path of ['/', '/missing', '/moved']) {
      const ours = await readAnswer(httpFetch, `${server.url}${path}`, { redirect: 'manual' });
      const theirs = await readAnswer(asFetch, `${server.url}${path}`, { redirect: 'manual' });
      expect(ours, path).toEqual(theirs);
    }
    expect((await readAnswer(httpFetch, `${server.url}/`)).text).toBe('héllo \ufffd\ufffd ✓');
    expect((await httpFetch(`${server.url}/moved`)).status).toBe(302);
  });

  it('sends a string body with its Content-Length (not chunked), the method and the headers given, and a user-agent of its own', async () => {
    let seen: { method?: string; headers: Record<string, unknown>; body: string } | undefined;
    const server = await useHttpServer((req, res) => {
      void readBody(req).then((body) => {
        seen = { method: req.method, headers: req.headers, body: body.toString('utf8') };
        res.end('{"ok":true}');
      });
    });
    const answer = await httpFetch(`${server.url}/v1/x?y=1`, { method: 'POST', headers: { Authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"é":1}' });
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen?.method).toBe('POST');
    expect(seen?.body).toBe('{"é":1}');
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength('{"é":1}')));
    expect(seen?.headers['transfer-encoding']).toBeUndefined();
    expect(seen?.headers.authorization).toBe('Bearer k');
    expect(seen?.headers['user-agent']).toBe('median-dev');
  });

  it('fails as fetch fails: a refused connection is a TypeError whose cause has the socket’s code', async () => {
    const url = `http://127.0.0.1:${await refusedPort()}/`;
    const ours = await httpFetch(url).then(() => undefined, (error: unknown) => error);
    const theirs = await fetch(url).then(() => undefined, (error: unknown) => error);
    expect(ours).toBeInstanceOf(TypeError);
    expect((ours as Error).message).toBe((theirs as Error).message);
    expect(((ours as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await expect(httpFetch('ftp://127.0.0.1/')).rejects.toBeInstanceOf(TypeError);
    await expect(httpFetch('not a url')).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects with the signal’s reason when aborted before the answer, while the body is read, and when aborted already', async () => {
    const server = await useHttpServer((req, res) => {
      if (req.url === '/slow-head') return; // never answers
      res.writeHead(200);
      res.write('part'); // and never ends
    });
    const timeout = new DOMException('no answer', 'TimeoutError');
    const before = new AbortController();
    const pending = httpFetch(`${server.url}/slow-head`, { signal: before.signal });
    setImmediate(() => before.abort(timeout));
    await expect(pending).rejects.toBe(timeout);

    const during = new AbortController();
    const answer = await httpFetch(`${server.url}/slow-body`, { signal: during.signal });
    const text = answer.text();
    setImmediate(() => during.abort(timeout));
    await expect(text).rejects.toBe(timeout);

    await expect(httpFetch(server.url, { signal: AbortSignal.abort(timeout) })).rejects.toBe(timeout);
  });

  it('a body cut short rejects its text() as fetch’s does ("terminated"); cancel() drops a body unread', async () => {
    const raw = await useRawAnswerServer((index) =>
      index === 0 ? { bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part', close: true } : { bytes: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nwhole' },
    );
    const cut = await httpFetch(raw.url);
    const error = await cut.text().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
    const whole = await httpFetch(raw.url);
    await whole.body?.cancel();
    expect(await whole.text()).toBe('');
  });

  it('keepAlive: false asks for a connection of its own, closed after the answer', async () => {
    const raw = await useRawAnswerServer(() => ({ bytes: 'HTTP/1.1 204 No Content\r\n\r\n' }));
    expect((await httpFetch(raw.url, { keepAlive: false })).status).toBe(204);
    expect(raw.heads[0]).toMatch(/\r\nconnection: close/i);
  });
  it('idleTimeoutMs cuts a socket idle before the answer (a TypeError whose cause is ETIMEDOUT) and one idle in the middle of the body ("terminated")', async () => {
    const server = await useHttpServer((req, res) => {
      if (req.url === '/no-head') return; // never answers
      res.writeHead(200);
      res.write('part'); // and never ends
    });
    const started = Date.now();
    const error = await httpFetch(`${server.url}/no-head`, { idleTimeoutMs: 80 }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    const answer = await httpFetch(`${server.url}/part`, { idleTimeoutMs: 80 });
    const cut = await answer.text().then(() => undefined, (e: unknown) => e);
    expect((cut as Error).message).toBe('terminated');
    expect(((cut as Error).cause as NodeJS.ErrnoException).code).toBe('ETIMEDOUT');
  });

  it('without idleTimeoutMs a slow answer is waited for, whatever timeout the agent gives its sockets (Node 20’s global agent: 5 s)', async () => {
    // The global agent's own socket timeout, shortened so the test need not wait 5 s; it is read as each socket is made.
    const agentOptions = (globalAgent as unknown as { options: { timeout?: number } }).options;
    const before = agentOptions.timeout;
    agentOptions.timeout = 100;
    onTestFinished(() => {
      agentOptions.timeout = before;
    });
    const server = await useHttpServer((_req, res) => {
      setTimeout(() => res.end('late'), 400);
    });
    const answer = await httpFetch(`${server.url}/slow`);
    expect(await answer.text()).toBe('late');
  });

  it('maxBodyBytes keeps a body’s first bytes and drops the rest; without it the whole body is read', async () => {
    const big = Buffer.alloc(300_000, 0x61);
    const server = await useHttpServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(big.length) });
      res.end(big);
    });
    const answer = await httpFetch(server.url, { maxBodyBytes: 1000 });
    expect(await answer.text()).toBe('a'.repeat(1000));
    expect((await (await httpFetch(server.url)).arrayBuffer()).byteLength).toBe(big.length);
  });
});
