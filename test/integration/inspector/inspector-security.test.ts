import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeRecord } from '../../helpers/record-fixtures.js';
import { INSPECTOR_SESSION_HEADER } from '../../../src/shared/index.js';
import { exchangeLink, openSession, rawRequest, useInspectorServer } from '../../helpers/use-inspector-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const codeOf = (body: string): string => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('inspector server: a web page must never drive the daemon', () => {
  it('listens on 127.0.0.1 only', async () => {
    const { server } = await useInspectorServer();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const answer = await rawRequest(server.port, { path: '/' });
    expect(answer.status).toBe(200);
  });

  it('answers 421 to any Host but its own (DNS rebinding)', async () => {
    const { server } = await useInspectorServer([makeRecord()]);
    const session = await openSession(server);
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, `localhost`, '', `127.0.0.2:${server.port}`]) {
      for (const path of ['/', '/api/calls', `/session?token=x`]) {
        const answer = await rawRequest(server.port, { path, headers: { host, ...session } });
        expect(answer.status, `${host} ${path}`).toBe(421);
        expect(codeOf(answer.body)).toBe('inspector_host_refused');
      }
    }
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
      const answer = await rawRequest(server.port, { path: '/api/calls', headers: { host, ...session } });
      expect(answer.status, host).toBe(200);
    }
  });

  it('gives data only to a session bought with a one-time token, sent in a header, never a cookie', async () => {
    const { server } = await useInspectorServer([makeRecord()]);
    for (const path of ['/api/calls', '/api/status', '/api/har', '/api/tools', '/api/session']) {
      const answer = await rawRequest(server.port, { path });
      expect(answer.status, path).toBe(401);
      expect(codeOf(answer.body)).toBe('inspector_no_session');
    }
    const forged = await rawRequest(server.port, { path: '/api/calls', headers: { [INSPECTOR_SESSION_HEADER]: 'guess' } });
    expect(forged.status).toBe(401);

    // The link opens the page and spends nothing by itself (a preview or a prefetch of it buys no session).
    const link = new URL(server.newLink());
    const opened = await rawRequest(server.port, { path: `${link.pathname}${link.search}` });
    expect(opened.status).toBe(200);
    expect(opened.headers['content-type']).toMatch(/^text\/html/);
    expect(opened.headers['set-cookie']).toBeUndefined();
    expect(codeOf((await exchangeLink(server, 'http://x/session?token=not-a-token')).body)).toBe('inspector_link_spent');
    // The page spends the token from its own origin only.
    const token = link.searchParams.get('token')!;
    const fromElsewhere = await rawRequest(server.port, { method: 'POST', path: '/api/session', headers: { origin: 'http://127.0.0.1:9' }, body: JSON.stringify({ token }) });
    expect(fromElsewhere.status).toBe(403);
    const first = await exchangeLink(server, link.href);
    expect(first.status).toBe(200);
    expect(first.headers['set-cookie']).toBeUndefined();
    const { session } = JSON.parse(first.body) as { session: string };
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const again = await exchangeLink(server, link.href);
    expect(again.status).toBe(401);
    expect(codeOf(again.body)).toBe('inspector_link_spent');

    const calls = await rawRequest(server.port, { path: '/api/calls', headers: { [INSPECTOR_SESSION_HEADER]: session } });
    expect(calls.status).toBe(200);
    expect(JSON.parse(calls.body).total).toBe(1);
    // The session id as a cookie (what a page on another port could set, or what earlier versions used) is nothing.
    const asCookie = await rawRequest(server.port, { path: '/api/calls', headers: { cookie: `median_dev_inspector=${session}; ${INSPECTOR_SESSION_HEADER}=${session}` } });
    expect(asCookie.status).toBe(401);
  });

  it('answers a navigation whose cookies other 127.0.0.1 pages piled up (no 431 lock-out)', async () => {
    const { server } = await useInspectorServer([makeRecord()]);
    const cookie = Array.from({ length: 100 }, (_, i) => `bomb${i}=${'x'.repeat(4000)}`).join('; ');
    const page = await rawRequest(server.port, { path: '/', headers: { cookie } });
    expect(page.status).toBe(200);
  });

  it('lets no other origin read, even with the session (a no-cors fetch or script tag from another port)', async () => {
    const { server } = await useInspectorServer([makeRecord()]);
    const session = await openSession(server);
    const tries: Record<string, string>[] = [
      { origin: 'http://127.0.0.1:9' },
      { origin: 'null' },
      { origin: `http://evil.example` },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of tries) {
      const answer = await rawRequest(server.port, { path: '/api/calls', headers: { ...session, ...headers } });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(codeOf(answer.body)).toBe('inspector_origin_refused');
    }
    const own = await rawRequest(server.port, { path: '/api/calls', headers: { ...session, origin: `http://127.0.0.1:${server.port}`, 'sec-fetch-site': 'same-origin' } });
    expect(own.status).toBe(200);
  });

  it('runs a replay only with the session and its own Origin', async () => {
    const record = makeRecord();
    const world = await useInspectorServer([record]);
    const { server } = world;
    const session = await openSession(server);
    const body = JSON.stringify({ id: record.id });
    const own = `http://127.0.0.1:${server.port}`;
    const refused: { headers: Record<string, string>; status: number }[] = [
      { headers: { origin: own, 'content-type': 'application/json' }, status: 401 },
      { headers: { ...session, 'content-type': 'application/json' }, status: 403 },
      { headers: { ...session, origin: 'http://127.0.0.1:9', 'content-type': 'application/json' }, status: 403 },
      // A form post from another page: another Origin, a form body.
      { headers: { ...session, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, status: 403 },
      { headers: { ...session, origin: `http://localhost:${server.port}`, 'content-type': 'application/json' }, status: 403 },
    ];
    for (const attempt of refused) {
      const answer = await rawRequest(server.port, { method: 'POST', path: '/api/replay', headers: attempt.headers, body });
      expect(answer.status, JSON.stringify(attempt.headers)).toBe(attempt.status);
    }
    expect(world.replays).toEqual([]);
    const answer = await rawRequest(server.port, { method: 'POST', path: '/api/replay', headers: { ...session, origin: own, 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(200);
    expect(world.replays).toEqual([{ id: record.id }]);
  });

  it('opens the live channel only with the session and its own Origin, then streams calls', async () => {
    const world = await useInspectorServer();
    const { server } = world;
    const session = await openSession(server);
    const own = `http://127.0.0.1:${server.port}`;
    expect((await rawRequest(server.port, { method: 'POST', path: '/api/live', headers: { ...session } })).status).toBe(403);
    expect((await rawRequest(server.port, { method: 'POST', path: '/api/live', headers: { origin: own } })).status).toBe(401);
    expect((await rawRequest(server.port, { method: 'POST', path: '/api/live', headers: { ...session, origin: 'http://127.0.0.1:9' } })).status).toBe(403);

    const controller = new AbortController();
    onTestFinishedAbort(controller);
    const response = await fetch(`${own}/api/live`, { method: 'POST', headers: { ...session, origin: own }, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const lines = lineReader(reader);
    expect(JSON.parse(await lines.next()).type).toBe('hello');
    const record = makeRecord({ tool: 'refund_order' });
    world.emit({ event: 'call', at: record.receivedAt, id: record.id, toolCallId: record.toolCallId, tool: record.tool, status: 200, signature: 'valid', verdict: 'answered', durationMs: 1, replayOf: null, record });
    const message = JSON.parse(await lines.next());
    expect(message).toMatchObject({ type: 'call', row: { id: record.id, tool: 'refund_order' } });
  });

  it('refuses WebSocket upgrades outright', async () => {
    const { server } = await useInspectorServer();
    const session = await openSession(server);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Median-Dev-Session: ${session[INSPECTOR_SESSION_HEADER]}\r\nOrigin: http://127.0.0.1:${server.port}\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    expect(answer).not.toMatch(/101 Switching Protocols/);
  });

  it('serves every answer with a strict Content-Security-Policy and no sniffing', async () => {
    const { server } = await useInspectorServer();
    for (const path of ['/', '/assets/main.js', '/api/calls']) {
      const answer = await rawRequest(server.port, { path });
      const csp = String(answer.headers['content-security-policy']);
      expect(csp, path).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    const page = await rawRequest(server.port, { path: '/' });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/assets/main.js');
  });

  it('takes a free port when the one asked for is taken, and close() is idempotent', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    useTeardown(blocker, (b) => new Promise((resolve) => b.close(resolve)));
    const taken = (blocker.address() as { port: number }).port;
    const world = await useInspectorServer([], { port: taken });
    expect(world.server.port).not.toBe(taken);
    await world.server.close();
    await world.server.close();
    await expect(rawRequest(world.server.port, { path: '/' })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a request that breaks the rules gets a coded error and the server keeps answering', async () => {
    const { server } = await useInspectorServer([makeRecord()]);
    const session = await openSession(server);
    const own = `http://127.0.0.1:${server.port}`;
    const bad = [
      { method: 'POST', path: '/api/replay', body: '{nope', status: 400, code: 'invalid_json_body' },
      { method: 'POST', path: '/api/replay', body: '[]', status: 400, code: 'invalid_replay' },
      { method: 'POST', path: '/api/replay', body: 'x'.repeat(1024 * 1024 + 1), status: 413, code: 'body_too_large' },
      { method: 'GET', path: '/api/calls?offset=-1', status: 400, code: 'invalid_query' },
      { method: 'GET', path: '/api/calls/rec_nope', status: 404, code: 'call_not_found' },
      { method: 'GET', path: '/api/nothing', status: 404, code: 'not_found' },
    ];
    for (const attempt of bad) {
      const answer = await rawRequest(server.port, { method: attempt.method, path: attempt.path, headers: { ...session, origin: own }, ...(attempt.body ? { body: attempt.body } : {}) });
      expect(answer.status, attempt.path).toBe(attempt.status);
      expect(codeOf(answer.body)).toBe(attempt.code);
    }
    expect((await rawRequest(server.port, { path: '/api/calls', headers: { ...session } })).status).toBe(200);
  });

  it('says the page was not built when there is no page', async () => {
    const { server } = await useInspectorServer([], { assetDir: '/nonexistent/median-dev-inspector' });
    const answer = await rawRequest(server.port, { path: '/' });
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('npm run build');
  });
});

function onTestFinishedAbort(controller: AbortController): void {
  useTeardown(controller, (c) => c.abort());
}

function lineReader(reader: ReadableStreamDefaultReader<string>) {
  let buffer = '';
  return {
    async next(): Promise<string> {
      for (;;) {
        const newline = buffer.indexOf('\n');
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== '') return line;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the live channel ended');
        buffer += value;
      }
    },
  };
}
