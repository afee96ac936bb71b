import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../../helpers/fakes/self-signed-tls.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { ROUTE, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

describe('a dev server on https with a self-signed certificate', () => {
  it('gets every call over one kept TLS connection, answers chunked or by length relayed and recorded', async () => {
    let connections = 0;
    const server = createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.stringify({ result: { got: Buffer.concat(chunks).length, path: req.url } });
        // Every other answer chunked (no length), as a streaming route answers.
        if (req.headers['x-chunked']) res.write(body.slice(0, 5));
        else res.setHeader('content-length', Buffer.byteLength(body));
        res.end(req.headers['x-chunked'] ? body.slice(5) : body);
      });
    });
    server.on('secureConnection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    useTeardown(server, (s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    });
    const { port } = server.address() as AddressInfo;
    const under = await useRecordingProxy({ target: `https://127.0.0.1:${port}` });
    const body = toolCallBody('orderStatus', { orderNumber: 'A-1' });

    const byLength = await send(`${under.proxy.url}${ROUTE}`, { method: 'POST', body });
    const chunked = await send(`${under.proxy.url}${ROUTE}`, { method: 'POST', body, headers: { 'x-chunked': '1' } });

    const expected = JSON.stringify({ result: { got: Buffer.byteLength(body), path: ROUTE } });
    expect([byLength.status, byLength.body.toString(), chunked.body.toString()]).toEqual([200, expected, expected]);
    expect(connections).toBe(1);
    const records = await under.waitForRecords(2);
    expect(records.map((record) => record.response?.body)).toEqual([expected, expected]);
  });
});
