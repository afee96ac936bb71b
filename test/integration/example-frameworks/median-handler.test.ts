import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { exampleTools } from '../../../examples/frameworks/lib/example-tools.js';
import { createMedianHandler, type MedianEnv } from '../../../examples/frameworks/lib/median-handler.js';
import { computeSignature, resolveToolSecret } from '../../../src/median/index.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * The framework examples' one route (examples/frameworks/lib), served as
 * every framework there mounts it (a Fetch API Request in, a Response out)
 * on a real node:http server, against the real emulator: connect with the
 * Bearer key, Median's own sync of the manifest, signed calls, and each
 * way a request can be refused (SPEC §1.2).
 */

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function useExampleRoute(env: MedianEnv): Promise<string> {
  const median = createMedianHandler({ tools: exampleTools(() => env), env: () => env });
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const answer = await median(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined }));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  useTeardown(server, (s) => new Promise<void>((resolve) => s.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/median`;
}

describe('the framework examples’ Median route', () => {
  it('connects with the Bearer key, passes Median’s sync, and answers signed calls', async () => {
    const { emulator, client } = await useEmulator();
    const env: MedianEnv = { MEDIAN_KEY: emulator.key, MEDIAN_API_URL: emulator.url };
    const url = await useExampleRoute(env);
    env.MEDIAN_TOOLS_URL = url;

    const connect = await fetch(url, { headers: { authorization: `Bearer ${emulator.key}` } });
    expect(connect.status).toBe(200);
    expect(await connect.json()).toMatchObject({ connected: true, endpoint: url, tools: 2 });
    await vi.waitFor(async () => expect((await client.listEndpoints()).find((e) => e.url === url)).toMatchObject({ status: 'synced', error: null }), { timeout: 10_000 });

    const order = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: url });
    expect(order).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
    expect(JSON.parse(order.body!)).toEqual({ result: { orderNumber: 'A1001', status: 'shipped' } });
    // The route reads its variables per request: a changed MEDIAN_TOOLS_URL is answered at once.
    env.MEDIAN_TOOLS_URL = 'https://moved.example/api/median';
    const info = await emulator.callTool({ tool: 'routeInfo', input: {}, endpointUrl: url });
    expect(JSON.parse(info.body!)).toEqual({ result: { toolsUrl: 'https://moved.example/api/median', pid: process.pid } });
  });

  it('refuses what Median did not sign, with each code, and answers 405, 404, 400 and diagnostics as the docs say', async () => {
    const key = `median_key_${'a'.repeat(32)}`;
    const url = await useExampleRoute({ MEDIAN_KEY: key });
    const secret = resolveToolSecret({ medianKey: key });
    const post = (body: string, signature?: string) => fetch(url, { method: 'POST', body, headers: signature ? { 'median-signature': signature } : {} });
    const signed = (body: string, t = Date.now()) => post(body, `t=${t},v1=${computeSignature(secret, t, body)}`);
    const code = async (answer: Promise<Response>) => {
      const response = await answer;
      return [response.status, ((await response.json()) as { error?: { code: string } }).error?.code];
    };
    const call = JSON.stringify({ tool: 'orderStatus', toolCallId: 'call_1', input: { orderNumber: 'A1' }, context: { conversationId: 'c', risk: 'low', visitor: { verified: false } } });

    expect(await code(post(call))).toEqual([401, 'missing_signature']);
    expect(await code(post(call, 'v1=abc'))).toEqual([401, 'malformed_signature']);
    expect(await code(signed(call, Date.now() - 301_000))).toEqual([401, 'stale_timestamp']);
    expect(await code(post(call, `t=${Date.now()},v1=${'0'.repeat(64)}`))).toEqual([401, 'invalid_signature']);
    expect(await code(fetch(url, { headers: { 'median-signature': 'nope' } }))).toEqual([401, 'malformed_signature']);
    expect(await code(fetch(url, { method: 'PUT', body: call }))).toEqual([405, 'method_not_allowed']);
    expect(await code(fetch(url, { headers: { authorization: 'Bearer median_key_other' } }))).toEqual([401, 'unauthorized']);
    expect(await code(signed(call.replace('orderStatus', 'nope')))).toEqual([404, 'unknown_tool']);
    expect(await code(signed(call.replace('"orderNumber":"A1"', '"orderNumber":1')))).toEqual([400, 'invalid_input']);
    expect(await code(signed(call.replace('"orderNumber":"A1"', '"other":"x"')))).toEqual([400, 'invalid_input']);
    expect(await code(signed('{"op":"diagnostics"}'))).toEqual([200, 'diagnostics_unsupported']);
    expect(await code(signed('{"op":"other"}'))).toEqual([400, 'unknown_op']);
    expect(await code(signed('[1]'))).toEqual([400, 'invalid_body']);
    const t = Date.now();
    const manifest = await fetch(url, { headers: { 'median-signature': `t=${t},v1=${computeSignature(secret, t, '')}` } });
    expect(manifest.status).toBe(200);
    expect(await manifest.json()).toMatchObject({ version: 1, tools: [{ name: 'orderStatus', inputSchema: { additionalProperties: false } }, { name: 'routeInfo' }] });
    // No key on the server: nothing can be checked.
    const keyless = await useExampleRoute({});
    expect(await code(fetch(keyless))).toEqual([500, 'missing_secret']);
  });
});
