import { HEALTH_MARKER_HEADER, HEALTH_PATH, isProxyMarker } from '../../../src/shared/health-check.js';
import { createFetchHealthProbe } from '../../../src/tunnel/index.js';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { startRecordingProxy } from '../../../src/proxy/index.js';
import { HOLD_LIMIT_MS } from '../../../src/proxy/record-batch.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { ROUTE, send, useRecordingProxy } from './proxy-harness.js';

function connectionsOf(server: { getConnections(cb: (error: Error | null, count: number) => void): void }): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

describe('the health endpoint', () => {
  it('answers itself, with the instance id and nothing about recordings', async () => {
    let targetHits = 0;
    const target = await useHttpServer((_req, res) => {
      targetHits += 1;
      res.end();
    });
    const { proxy, records, started } = await useRecordingProxy({ target: target.url, instanceId: 'inst_42' });

    const answer = await send(`${proxy.url}/__median-dev/health`);
    const head = await send(`${proxy.url}/__median-dev/health?probe=1`, { method: 'HEAD' });
    const post = await send(`${proxy.url}/__median-dev/health`, { method: 'POST' });

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body.toString()).toBe('{"ok":true,"service":"median-dev","instance":"inst_42"}');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(post.status).toBe(405);
    expect(targetHits).toBe(0);
    expect(records).toEqual([]);
    expect(started).toEqual([]);
  });

  it('marks its health answer with the header the tunnel probe looks for', async () => {
    const { proxy } = await useRecordingProxy({ target: 'http://127.0.0.1:9', instanceId: 'inst_7' });

    const answer = await send(`${proxy.url}${HEALTH_PATH}`);
    const head = await send(`${proxy.url}${HEALTH_PATH}`, { method: 'HEAD' });
    const ours = await createFetchHealthProbe({ instanceId: 'inst_7' })(`${proxy.url}${HEALTH_PATH}`, { signal: AbortSignal.timeout(5_000) });
    const another = await createFetchHealthProbe({ instanceId: 'inst_8' })(`${proxy.url}${HEALTH_PATH}`, { signal: AbortSignal.timeout(5_000) });

    // The marker names the instance, so a body-less answer (HEAD) is still recognised.
    expect(answer.headers[HEALTH_MARKER_HEADER]).toBe('inst_7');
    expect(head.headers[HEALTH_MARKER_HEADER]).toBe('inst_7');
    expect(isProxyMarker(head.headers[HEALTH_MARKER_HEADER] as string, 'inst_7')).toBe(true);
    expect(ours).toEqual({ kind: 'answered', status: 200, isFromProxy: true });
    expect(another).toEqual({ kind: 'answered', status: 200, isFromProxy: false });
  });

  it('makes up an instance id when none is given', async () => {
    const { proxy } = await useRecordingProxy({ target: 'http://127.0.0.1:9' });

    const answer = JSON.parse((await send(`${proxy.url}/__median-dev/health`)).body.toString()) as { instance: string };

    expect(answer.instance).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('starting', () => {
  it('rejects a port that is taken with proxy_port_in_use', async () => {
    const { proxy } = await useRecordingProxy({ target: 'http://127.0.0.1:9' });

    await expect(startRecordingProxy({ target: 'http://127.0.0.1:9', route: ROUTE, port: proxy.port, onRecord() {} })).rejects.toMatchObject({
      code: 'proxy_port_in_use',
    });
  });

  it.each(['localhost:3000', 'ftp://localhost:3000', ''])('rejects the target %j with invalid_target', async (target) => {
    await expect(startRecordingProxy({ target, route: ROUTE, onRecord() {} })).rejects.toMatchObject({ code: 'invalid_target' });
  });

  it('rejects when cancelled before listening', async () => {
    const controller = new AbortController();
    controller.abort();

    await expect(
      startRecordingProxy({ target: 'http://127.0.0.1:9', route: ROUTE, onRecord() {} }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('close()', () => {
  it('stops accepting, destroys idle keep-alive connections on both sides, and is idempotent', async () => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.end('ok');
    });
    const proxy = useTeardown(await startRecordingProxy({ target: target.url, route: ROUTE, onRecord() {} }), (p) => p.close());
    const agent = useTeardown(new Agent({ keepAlive: true }), (a) => a.destroy());
    const answer = await new Promise<Socket>((resolve, reject) => {
      const req = request(`${proxy.url}/`, { agent }, (res) => {
        const socket = res.socket as Socket;
        res.resume();
        res.once('end', () => resolve(socket));
      });
      req.once('error', reject).end();
    });
    expect(await connectionsOf(target.server)).toBe(1); // our keep-alive connection to the dev server
    const clientClosed = once(answer, 'close');

    const first = proxy.close();
    expect(proxy.close()).toBe(first);
    await first;

    await clientClosed; // the caller's idle keep-alive connection was cut
    await vi.waitFor(async () => expect(await connectionsOf(target.server)).toBe(0));
    await expect(send(`${proxy.url}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('records a request still under way as proxy_closed', async () => {
    const target = await useHttpServer((req) => req.resume()); // never answers
    const records: unknown[] = [];
    const proxy = useTeardown(
      await startRecordingProxy({ target: target.url, route: ROUTE, onRecord: (r) => void records.push(r) }),
      (p) => p.close(),
    );
    const caller = send(`${proxy.url}${ROUTE}`, { method: 'POST', body: '{}' });
    await vi.waitFor(async () => expect(await connectionsOf(target.server)).toBe(1));

    await proxy.close();

    await expect(caller).rejects.toThrow();
    expect(records).toMatchObject([{ error: { code: 'proxy_closed' }, response: null, verdict: { kind: 'not-answering' } }]);
  });

  it('waits for records still being written', async () => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.end('ok');
    });
    let finishWriting: (() => void) | undefined;
    let written = false;
    // The answer's end waits for its record, at most 2 s on this clock: moved on below instead of waited out.
    const clock = createManualClock();
    const proxy = useTeardown(
      await startRecordingProxy({
        target: target.url,
        route: ROUTE,
        clock,
        onRecord: () =>
          new Promise<void>((resolve) => {
            finishWriting = () => {
              written = true;
              resolve();
            };
          }),
      }),
      (p) => p.close(),
    );
    const answered = send(`${proxy.url}/`);
    await vi.waitFor(() => expect(finishWriting).toBeDefined());
    expect(clock.nextTimerIn()).toBe(HOLD_LIMIT_MS);
    clock.advance(HOLD_LIMIT_MS);
    await answered;

    const closed = proxy.close();
    finishWriting?.();
    await closed;

    expect(written).toBe(true);
  });
});

describe('slow callers', () => {
  it('cuts off a caller that never finishes its headers (headersTimeoutMs)', async () => {
    const { proxy } = await useRecordingProxy({ target: 'http://127.0.0.1:9', limits: { headersTimeoutMs: 150 } });
    const socket = connect(proxy.port, '127.0.0.1');
    useTeardown(socket, (s) => s.destroy());
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));

    socket.write('POST /api/median HTTP/1.1\r\nHost: x\r\n'); // and nothing more
    await once(socket, 'close');

    expect(Buffer.concat(received).toString()).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('WebSockets', () => {
  it('forwards an upgrade to the dev server (hot reload) and cuts it on close()', async () => {
    const target = await useHttpServer((_req, res) => res.end());
    const wss = new WebSocketServer({ server: target.server });
    useTeardown(wss, (w) => new Promise((resolve) => w.close(resolve)));
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo:${String(data)}`)));
    const proxy = useTeardown(await startRecordingProxy({ target: target.url, route: ROUTE, onRecord() {} }), (p) => p.close());
    const client = new WebSocket(`${proxy.url.replace('http', 'ws')}/_next/webpack-hmr`);
    useTeardown(client, (c) => c.terminate());
    await once(client, 'open');

    client.send('hi');
    const [reply] = (await once(client, 'message')) as [Buffer];
    expect(String(reply)).toBe('echo:hi');

    const closed = once(client, 'close');
    await proxy.close();
    await closed;
  });

  it('keeps the bytes a client sends before its upgrade is passed on (http-proxy-3 loads at the first upgrade)', async () => {
    const target = await useHttpServer((_req, res) => res.end());
    const wss = new WebSocketServer({ server: target.server });
    useTeardown(wss, (w) => new Promise((resolve) => w.close(resolve)));
    const received: string[] = [];
    const twoMessages = new Promise<void>((resolve) => wss.on('connection', (ws) => ws.on('message', (data) => received.push(String(data)) === 2 && resolve())));
    const proxy = useTeardown(await startRecordingProxy({ target: target.url, route: ROUTE, onRecord() {} }), (p) => p.close());

    // A raw client that does not wait for the 101: one frame in the upgrade's own write (the upgrade's head), one right after.
    const socket = useTeardown(connect(Number(new URL(proxy.url).port), '127.0.0.1'), (s) => s.destroy());
    await once(socket, 'connect');
    const upgrade = ['GET /_next/webpack-hmr HTTP/1.1', `Host: ${new URL(proxy.url).host}`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', '', ''].join('\r\n');
    socket.write(Buffer.concat([Buffer.from(upgrade), maskedTextFrame('first')]));
    socket.write(maskedTextFrame('second'));

    await twoMessages;
    expect(received).toEqual(['first', 'second']);
  });
});

/** A client's WebSocket text frame (FIN, masked, under 126 bytes), as RFC 6455 §5.2 lays it out. */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}
