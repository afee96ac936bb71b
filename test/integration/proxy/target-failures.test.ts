import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, closedPortTarget, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

describe('a dev server that is down or breaks', () => {
  it('answers 502 target_unreachable with the docs-style message when nothing listens, and records it', async () => {
    const target = await closedPortTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target });
    const body = toolCallBody('orderStatus', { orderNumber: 'A1' });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body });

    expect(answer.status).toBe(502);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body.toString())).toEqual({
      error: {
        code: 'target_unreachable',
        message: `median-dev: the dev server at ${target} is not answering (ECONNREFUSED). Start it, or pass --target.`,
      },
    });
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({
      kind: 'tool-call',
      tool: 'orderStatus',
      response: null,
      error: { code: 'target_unreachable' },
      verdict: { kind: 'not-answering' },
      request: { body },
    });
  });

  it('answers 502 when the dev server drops the connection without answering', async () => {
    const target = await useHttpServer((req) => req.socket.destroy());
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: '{}' });

    expect(answer.status).toBe(502);
    expect((JSON.parse(answer.body.toString()) as { error: { code: string } }).error.code).toBe('target_unreachable');
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ response: null, error: { code: 'target_unreachable' }, verdict: { kind: 'not-answering' } });
  });

  it('cuts the caller off when the answer breaks off midway, and records the part it got', async () => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"result":', () => res.socket?.destroy());
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    await expect(send(`${proxy.url}${ROUTE}`, { method: 'POST', body: '{}' })).rejects.toThrow();

    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({
      response: { status: 200, body: '{"result":', truncated: true },
      error: { code: 'target_reset' },
      verdict: { kind: 'not-answering' },
    });
  });

  it('gives up on a dev server that says nothing for upstreamGiveUpMs: 504 and a record', async () => {
    const target = await useHttpServer((req) => req.resume()); // never answers
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, limits: { upstreamGiveUpMs: 150 } });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: '{}' });

    expect(answer.status).toBe(504);
    expect((JSON.parse(answer.body.toString()) as { error: { code: string } }).error.code).toBe('target_timeout');
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ response: null, error: { code: 'target_timeout' }, verdict: { kind: 'not-answering' } });
  });
});

describe("Median's 10 s limit", () => {
  it('judges a call answered after the limit as not-answering and still records the late answer', async () => {
    let clock = 1_000_000;
    let release: (() => void) | undefined;
    const target = await useHttpServer((req, res) => {
      req.resume();
      release = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"result":{"done":true}}');
      };
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, now: () => clock });

    const pending = send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('slowReport', {}) });
    await vi.waitFor(() => expect(release).toBeDefined());
    clock += 10_001;
    release?.();
    const answer = await pending;

    expect(answer.status).toBe(200); // our caller still gets the answer
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({
      durationMs: 10_001,
      lateAnswer: true,
      verdict: { kind: 'not-answering' },
      response: { status: 200, body: '{"result":{"done":true}}' },
    });
  });

  it('with a shortened timeoutMs, a slow answer is late; a quick one is not', async () => {
    const target = await useHttpServer((req, res) => {
      req.resume();
      const delayMs = req.url?.includes('slow') ? 400 : 0;
      setTimeout(() => res.end('{"result":1}'), delayMs).unref();
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, limits: { timeoutMs: 200 } });

    await send(`${proxy.url}${ROUTE}?slow`, { method: 'POST', body: toolCallBody('slowReport', {}) });
    await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('slowReport', {}) });

    const [slow, quick] = await waitForRecords(2);
    expect(slow).toMatchObject({ lateAnswer: true, verdict: { kind: 'not-answering' }, response: { body: '{"result":1}' } });
    expect(slow?.durationMs).toBeGreaterThan(200);
    expect(quick).toMatchObject({ lateAnswer: false, verdict: { kind: 'answered' } });
  });

  it('keeps waiting for the dev server when the caller hangs up, and records the late answer', async () => {
    let release: (() => void) | undefined;
    let upstreamAborted = false;
    const target = await useHttpServer((req, res) => {
      req.resume();
      res.once('close', () => {
        if (!res.writableFinished) upstreamAborted = true;
      });
      release = () => res.end('{"result":"late"}');
    });
    const logger = createRecordingLogger();
    const { proxy, started, waitForRecords } = await useRecordingProxy({ target: target.url, logger });

    const caller = request(`${proxy.url}${ROUTE}`, { method: 'POST', agent: false });
    caller.on('error', () => {
      /* We hang up on purpose. */
    });
    caller.end(toolCallBody('slowReport', {}));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    await vi.waitFor(() => expect(release).toBeDefined());
    caller.destroy();
    await vi.waitFor(() => expect(logger.messages('debug').some((m) => m.includes('hung up'))).toBe(true));
    release?.();

    const [record] = await waitForRecords(1);
    expect(upstreamAborted).toBe(false);
    expect(record).toMatchObject({
      error: { code: 'client_closed' },
      response: { status: 200, body: '{"result":"late"}' },
      request: { body: toolCallBody('slowReport', {}) },
    });
  });

  it('when the caller hangs up halfway through its body, cuts the dev server off too and records it', async () => {
    let targetSawRequest = false;
    let targetSawAbort = false;
    const target = await useHttpServer((req) => {
      targetSawRequest = true;
      req.resume();
      req.once('close', () => {
        if (!req.complete) targetSawAbort = true;
      });
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    const caller = request(`${proxy.url}${ROUTE}`, { method: 'POST', agent: false, headers: { 'content-length': '1000' } });
    caller.on('error', () => {
      /* We hang up on purpose. */
    });
    caller.write('{"tool":"half');
    await vi.waitFor(() => expect(targetSawRequest).toBe(true));
    caller.destroy();

    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ response: null, error: { code: 'client_closed' }, request: { body: '{"tool":"half' } });
    await vi.waitFor(() => expect(targetSawAbort).toBe(true));
  });
});
