import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { connectControl } from '../../../src/control/index.js';
import { rejectionOf, useControlServer } from './use-control-server.js';

interface UpgradeOutcome {
  status: number;
  body: string;
}

/** A raw HTTP upgrade request: 101 when the server would open a WebSocket, else its refusal. */
function upgradeRequest(port: number, headers: Record<string, string>): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.once('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('who may open the control channel', () => {
  it.each([
    ['no Authorization header', () => ({}), 401, 'unauthorized'],
    ['a wrong token', () => ({ authorization: `Bearer ${'0'.repeat(64)}` }), 401, 'unauthorized'],
    ['a token of another length', () => ({ authorization: 'Bearer abc' }), 401, 'unauthorized'],
    ['another scheme', (token: string) => ({ authorization: `Basic ${token}` }), 401, 'unauthorized'],
    ['the right token from a web page (Origin)', (token: string) => ({ authorization: `Bearer ${token}`, origin: 'http://127.0.0.1:4141' }), 403, 'origin_refused'],
    ['an Origin even of "null"', (token: string) => ({ authorization: `Bearer ${token}`, origin: 'null' }), 403, 'origin_refused'],
    ['a web page without the token', () => ({ origin: 'https://evil.example' }), 403, 'origin_refused'],
  ])('refuses %s before any WebSocket opens', async (_name, headersFor, status, code) => {
    const { server } = await useControlServer();
    const outcome = await upgradeRequest(server.port, headersFor(server.token));
    expect(outcome.status).toBe(status);
    expect(JSON.parse(outcome.body)).toMatchObject({ error: { code } });
    expect(server.clientCount()).toBe(0);
  });

  it('opens for the right token without an Origin', async () => {
    const { server } = await useControlServer();
    const outcome = await upgradeRequest(server.port, { authorization: `bearer ${server.token}` });
    expect(outcome.status).toBe(101);
  });

  it('answers a plain HTTP request with 426', async () => {
    const { server } = await useControlServer();
    const res = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({ error: { code: 'upgrade_required' } });
  });

  it('makes the client fail with control_refused on a wrong token', async () => {
    const { server } = await useControlServer();
    const error = await rejectionOf(connectControl({ port: server.port, token: 'f'.repeat(64) }));
    expect(error).toMatchObject({ code: 'control_refused', details: { status: 401 } });
    expect(server.clientCount()).toBe(0);
  });

  it('uses a fresh 32-byte hex token for every server', async () => {
    const { server: a } = await useControlServer();
    const { server: b } = await useControlServer();
    expect(a.token).toMatch(/^[0-9a-f]{64}$/);
    expect(b.token).toMatch(/^[0-9a-f]{64}$/);
    expect(a.token).not.toBe(b.token);
  });
});
