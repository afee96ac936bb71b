import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { requestVia } from '../../helpers/use-tunnel-server.js';

/** Sends raw bytes to 127.0.0.1:port and returns everything that comes back before the socket closes. */
function rawExchange(port: number, request: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      // A reset after the answer still leaves the answer to check.
      if (answer) resolve(answer);
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.write(request);
  });
}

const HEALTH = '/__median-dev/health';

/** Requests that try to read recordings, state or the control channel through the proxy's own namespace. */
const PROBES: Array<[method: string, path: string]> = [
  ['GET', '/__median-dev/'],
  ['GET', '/__median-dev'],
  ['GET', '/__median-dev/calls'],
  ['GET', '/__median-dev/records'],
  ['GET', '/__median-dev/calls.jsonl'],
  ['GET', '/__median-dev/state.json'],
  ['GET', '/__median-dev/control.json'],
  ['GET', '/__median-dev/snapshot'],
  ['GET', '/__median-dev/export.har'],
  ['GET', '/__median-dev/health/../calls'],
  ['GET', '/__median-dev/health/..%2fcalls'],
  ['GET', '/__median-dev/health%2f..%2fcalls'],
  ['GET', '/__median-dev/health/'],
  ['GET', '/__median-dev/health.json'],
  ['GET', '//__median-dev/health'],
  ['GET', '/%5F%5Fmedian-dev/health'],
  ['GET', '/__MEDIAN-DEV/calls'],
  ['GET', '/.median-dev/calls'],
  ['GET', '/.median-dev/state.json'],
  ['GET', '/api/median/../../.median-dev/control.json'],
  ['POST', '/__median-dev/health'],
  ['PUT', '/__median-dev/health'],
  ['DELETE', '/__median-dev/health'],
  ['OPTIONS', '/__median-dev/health'],
  ['PATCH', '/__median-dev/calls'],
  ['POST', '/__median-dev/replay'],
  ['TRACE', '/__median-dev/health'],
];

describe("the proxy's own endpoints", () => {
  it('answer health and nothing else: no recording, state or token through the proxy or the public URL', { timeout: 60_000 }, async () => {
    const world = await useE2eWorld();
    const cli = world.start();
    const tunnel = await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'open' }));
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    const proxyPort = Number(new URL((await cli.waitForEvent((e) => e.event === 'proxy')).url as string).port);
    const publicHost = new URL(tunnel.url as string).host;

    // Recordings worth stealing.
    const mark = cli.events().length;
    const call = await world.emulator.callTool({
      tool: 'lookupCustomer',
      input: {},
      visitor: { verified: true, externalId: 'cus_secret_42', email: 'ada@example.com', name: 'Ada Lovelace' },
    });
    await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId });
    const control = JSON.parse(await readFile(join(world.dataDir, 'control.json'), 'utf8')) as { token: string; port: number; instanceId: string };
    const recordIds = cli.events().filter((e) => e.event === 'call').map((e) => e.id as string);
    const secrets = [call.toolCallId, call.conversationId, 'cus_secret_42', 'ada@example.com', control.token, world.emulator.key, ...recordIds];
    const leaksIn = (text: string) => secrets.filter((s) => text.includes(s));

    const viaProxy = (method: string, path: string, headers: Record<string, string> = {}) =>
      rawExchange(proxyPort, [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n'));
    const viaTunnel = async (method: string, path: string) => {
      const answer = await requestVia(world.tunnelServer, publicHost, { method, path });
      return `${answer.status}\n${JSON.stringify(answer.headers)}\n${answer.body}`;
    };

    // Health: the same small answer both ways, for GET and HEAD.
    for (const answer of [await viaProxy('GET', HEALTH), await viaProxy('GET', `${HEALTH}?calls=1`)]) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ ok: true, service: 'median-dev', instance: control.instanceId });
    }
    const publicHealth = await requestVia(world.tunnelServer, publicHost, { path: HEALTH });
    expect(publicHealth.status).toBe(200);
    expect(JSON.parse(publicHealth.body)).toEqual({ ok: true, service: 'median-dev', instance: control.instanceId });
    const head = await viaProxy('HEAD', HEALTH);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.slice(head.indexOf('\r\n\r\n') + 4)).toBe('');

    const answers: Array<{ probe: string; text: string }> = [];
    for (const [method, path] of PROBES) {
      answers.push({ probe: `proxy ${method} ${path}`, text: await viaProxy(method, path) });
      answers.push({ probe: `tunnel ${method} ${path}`, text: await viaTunnel(method, path) });
    }
    // Odd methods on the health path are refused by the proxy itself, with no data.
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      expect(answers.find((a) => a.probe === `proxy ${method} ${HEALTH}`)?.text).toMatch(/^HTTP\/1\.1 405 [\s\S]*method_not_allowed/);
    }
    // The proxy as a forward proxy (absolute-form targets) to the control channel or the data dir, and an upgrade carrying the token.
    answers.push({ probe: 'absolute-form to the control port', text: await viaProxy('GET', `http://127.0.0.1:${control.port}/`) });
    answers.push({ probe: 'absolute-form health', text: await viaProxy('GET', `http://127.0.0.1:${control.port}${HEALTH}`) });
    answers.push({ probe: 'CONNECT to the control port', text: await viaProxy('CONNECT', `127.0.0.1:${control.port}`) });
    const upgrade = await viaProxy('GET', '/__median-dev/control', {
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      Authorization: `Bearer ${control.token}`,
    });
    expect(upgrade).not.toMatch(/^HTTP\/1\.1 101/);
    answers.push({ probe: 'upgrade with the control token', text: upgrade });

    expect(answers.flatMap((a) => leaksIn(a.text).map((s) => `${a.probe}: ${s}`))).toEqual([]);
    for (const { probe, text } of answers) {
      expect(text, probe).not.toMatch(/"(receivedAt|agentSees|records|callCount|snapshot)"/);
      // Nothing reached the control channel (it answers plain HTTP with 426 upgrade_required).
      expect(text, probe).not.toMatch(/upgrade_required|control channel/);
    }
    // The daemon is still up and still records.
    const after = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    expect(after.verdict.kind).toBe('answered');
  });
});
