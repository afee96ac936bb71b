import { describe, expect, it } from 'vitest';
import { openRouteWithKey } from '../../../src/daemon/route-opener.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, closedPortTarget, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

describe('calls before the dev server is up', () => {
  it('answers 503 with Retry-After at once while it is not known where the dev server listens, and records it', async () => {
    let isForwarded = false;
    const target = await useHttpServer((_req, res) => {
      isForwarded = true;
      res.end('{}');
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, devServerPhase: () => 'finding' });
    const body = toolCallBody('orderStatus', { orderNumber: 'A1' });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body });

    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect((JSON.parse(answer.body.toString()) as { error: { code: string } }).error.code).toBe('dev_server_starting');
    expect(isForwarded).toBe(false);
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ tool: 'orderStatus', response: null, error: { code: 'dev_server_starting' }, verdict: { kind: 'not-answering' }, request: { body } });
  });

  it('answers 503, not 502, when the starting dev server refuses the connection', async () => {
    const target = await closedPortTarget();
    const { proxy, waitForRecords } = await useRecordingProxy({ target, devServerPhase: () => 'starting' });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('orderStatus', {}) });

    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    const parsed = JSON.parse(answer.body.toString()) as { error: { code: string; message: string } };
    expect(parsed.error.code).toBe('dev_server_starting');
    expect(parsed.error.message).toContain(target);
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ error: { code: 'dev_server_starting' }, verdict: { kind: 'not-answering' } });
  });

  it('answers 502, not 503, when the starting dev server takes the connection and resets it: it is up, and broken', async () => {
    const target = await useHttpServer((req) => req.socket.destroy());
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, devServerPhase: () => 'starting' });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('orderStatus', {}) });

    expect(answer.status).toBe(502);
    const [record] = await waitForRecords(1);
    expect(record).toMatchObject({ error: { code: 'target_unreachable' } });
  });

  it('forwards as usual while starting once the dev server listens', async () => {
    const target = await useHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"result":"ok"}');
    });
    const { proxy } = await useRecordingProxy({ target: target.url, devServerPhase: () => 'starting' });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('orderStatus', {}) });

    expect(answer.status).toBe(200);
  });

  it('answers 502 again once the dev server was up', async () => {
    const target = await closedPortTarget();
    const { proxy } = await useRecordingProxy({ target, devServerPhase: () => null });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: '{}' });

    expect(answer.status).toBe(502);
  });
});

describe('opening the route while the dev server starts', () => {
  it("takes the proxy's 503 for the dev server not being up yet, not for the route's answer", async () => {
    const { proxy } = await useRecordingProxy({ target: await closedPortTarget(), devServerPhase: () => 'starting' });

    const outcome = await openRouteWithKey({ url: `${proxy.url}${ROUTE}`, key: () => `median_key_${'a'.repeat(32)}`, readyTimeoutMs: 300, backoff: { baseMs: 50, maxMs: 50, random: () => 0.5 } });

    expect(outcome).toEqual({ kind: 'unreachable', reason: 'the dev server is not answering' });
  });
});
