import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer, type ToolRouteServer } from '../../../examples/tools-route/index.js';
import type { Emulator } from '../../../src/emulator/index.js';
import {
  assertMedianKey,
  CONNECT_MESSAGES,
  deriveToolSecret,
  SYNC_MESSAGES,
  verifySignature,
} from '../../../src/median/index.js';
import { manifestOf, useEmulator, useManifestServer, type SeenRequest } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

/** Which of `keys` signed a recorded request ('none' when none of them did). */
function signedWith(request: SeenRequest | undefined, keys: Record<string, string>): string {
  const entry = Object.entries(keys).find(
    ([, key]) => verifySignature(request?.signature, request?.body ?? '', deriveToolSecret(key)) === 'valid',
  );
  return entry?.[0] ?? 'none';
}

interface Deployment {
  /** MEDIAN_TOOLS_URL: the public address, always the same. */
  toolsUrl: string;
  /** Deploys the example route holding `key` behind the public address (the old one stops). */
  deploy(key: string): Promise<ToolRouteServer>;
  /** `curl -H "authorization: Bearer $KEY" <route>`: opening the route once. */
  open(key: string): Promise<{ status: number; body: Record<string, unknown> }>;
}

/**
 * The example route behind one public HTTPS address (`https://shop.example`),
 * reached through a resolver added AFTER the emulator started. Deploying a
 * new MEDIAN_KEY swaps the server behind the address, like a redeploy.
 */
function useDeployment(emulator: Emulator): Deployment {
  const hostname = 'shop.example';
  const toolsUrl = `https://${hostname}/api/median`;
  let current: ToolRouteServer | undefined;
  const remove = emulator.addResolver((name) =>
    name === hostname && current ? { host: '127.0.0.1', port: current.port } : undefined,
  );
  useTeardown(remove, (r) => r());
  return {
    toolsUrl,
    async deploy(key) {
      const next = useTeardown(
        await startToolRouteServer({ port: 0, key, apiUrl: emulator.url, toolsUrl, tools: createDemoTools() }),
        (r) => r.close(),
      );
      const previous = current;
      current = next;
      await previous?.close();
      return next;
    },
    async open(key) {
      if (!current) throw new Error('deploy first');
      const response = await fetch(current.url, { headers: { authorization: `Bearer ${key}` } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}

describe('emulator keys: one organization, several Median keys', () => {
  it('creates valid keys for the same org: each one lists, connects and syncs the same endpoints', async () => {
    const { emulator, client, clientWithKey } = await useEmulator();
    const second = emulator.createKey();
    expect(() => assertMedianKey(second)).not.toThrow();
    expect(second).not.toBe(emulator.key);
    expect(emulator.keys()).toEqual([emulator.key, second]);

    const withSecond = clientWithKey(second);
    const a = await client.connect('https://a.example/api/median');
    const b = await withSecond.connect('https://b.example/api/median');
    expect((await withSecond.listEndpoints()).map((e) => e.id)).toEqual([a.id, b.id]);
    expect((await client.listEndpoints()).map((e) => e.id)).toEqual([a.id, b.id]);
  });

  it('answers 401 invalid_api_key for a revoked key on every /v1 call; the other keys keep working', async () => {
    const { emulator, client, clientWithKey } = await useEmulator();
    const second = emulator.createKey();
    const endpoint = await client.connect('https://a.example/api/median');
    emulator.revokeKey(emulator.key);
    emulator.revokeKey(emulator.key); // idempotent

    const revoked = { code: 'invalid_api_key', message: CONNECT_MESSAGES.invalidApiKey, details: { status: 401 } };
    const calls = [
      () => client.listEndpoints(),
      () => client.connect('https://b.example/api/median'),
      () => client.sync(),
      () => client.syncById(endpoint.id),
      () => client.changeEndpoint(endpoint.id, 'https://c.example/api/median'),
      () => client.setToolEnabled(endpoint.id, 'orderStatus', false),
      () => client.removeEndpoint(endpoint.id),
    ];
    for (const call of calls) expect(await rejection(call())).toMatchObject(revoked);

    // Revoking removes no endpoint; the org's other key still sees it.
    expect(emulator.key).not.toBe(second);
    expect(emulator.keys()).toEqual([second]);
    expect((await clientWithKey(second).listEndpoints()).map((e) => e.id)).toEqual([endpoint.id]);
  });

  it('refuses to revoke a key the org never held with unknown_key', async () => {
    const { emulator } = await useEmulator();
    expect(() => emulator.revokeKey('median_key_' + 'Q'.repeat(32))).toThrow(expect.objectContaining({ code: 'unknown_key' }));
    expect(emulator.keys()).toEqual([emulator.key]);
  });
});

describe('emulator keys: "You rotated the Median key" (tool-errors.txt)', () => {
  it('follows the recipe: new key deployed → refused signature; open the route with it → synced, calls verify', async () => {
    const { emulator, clientWithKey } = await useEmulator();
    const keyA = emulator.key;
    const route = useDeployment(emulator);
    await route.deploy(keyA);
    expect(await route.open(keyA)).toMatchObject({ status: 200, body: { connected: true, endpoint: route.toolsUrl } });
    const client = clientWithKey(keyA);
    const [connected] = await client.listEndpoints();
    const synced = await client.waitForSync(connected!.id, { intervalMs: 10 });
    expect(synced.status).toBe('synced');
    await client.setToolEnabled(synced.id, 'refundOrder', false);

    // Create the new key, and deploy it: the endpoint is still bound to A.
    const keyB = emulator.createKey();
    const clientB = clientWithKey(keyB);
    await route.deploy(keyB);
    expect(await clientB.sync()).toMatchObject({
      id: synced.id,
      status: 'failed',
      error: SYNC_MESSAGES.refusedSignature,
      tools: synced.tools.map((t) => (t.name === 'refundOrder' ? { ...t, enabled: false } : t)),
    });
    const refusedCall = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    expect(refusedCall).toMatchObject({ status: 401, verdict: { kind: 'not-answering' } });
    expect(JSON.parse(refusedCall.body ?? '{}').error.code).toBe('invalid_signature');

    // Open the route once with the new key: same endpoint, bound to B, synced.
    expect(await route.open(keyB)).toMatchObject({ status: 200, body: { connected: true, endpoint: route.toolsUrl } });
    const reconnected = await clientB.waitForSync(synced.id, { intervalMs: 10 });
    expect(reconnected).toMatchObject({ id: synced.id, status: 'synced', error: null, createdAt: synced.createdAt });
    expect(reconnected.tools.find((t) => t.name === 'refundOrder')).toEqual({ name: 'refundOrder', enabled: false });
    expect(await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } })).toMatchObject({
      status: 200,
      verdict: { kind: 'answered' },
    });

    // Revoke the old key: nothing changes for the endpoint, the old key is refused.
    emulator.revokeKey(keyA);
    expect(await clientB.sync()).toMatchObject({ status: 'synced' });
    expect(await rejection(client.listEndpoints())).toMatchObject({ code: 'invalid_api_key' });
    expect((await emulator.diagnostics()).status).toBe(200);
  });

  it('revoking first: calls fail with invalid_signature and syncs are refused until the route is opened again', async () => {
    const { emulator, clientWithKey } = await useEmulator();
    const keyA = emulator.key;
    const route = useDeployment(emulator);
    await route.deploy(keyA);
    await route.open(keyA);
    const [endpoint] = emulator.endpoints();
    await clientWithKey(keyA).waitForSync(endpoint!.id, { intervalMs: 10 });

    const keyB = emulator.createKey();
    emulator.revokeKey(keyA);
    await route.deploy(keyB);
    const clientB = clientWithKey(keyB);

    // The endpoint still signs with the revoked key's secret.
    expect(emulator.endpoints()).toHaveLength(1);
    expect(await clientB.sync()).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.refusedSignature });
    const call = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    expect(call).toMatchObject({ status: 401, verdict: { kind: 'not-answering' } });
    expect(call.verdict.callError).toMatch(/^The endpoint answered 401\. invalid_signature: /);
    const diagnostics = await emulator.diagnostics();
    expect(JSON.parse(diagnostics.body ?? '{}').error.code).toBe('invalid_signature');

    // Opening the route with the new key is the fix.
    expect((await route.open(keyB)).status).toBe(200);
    expect(await clientB.waitForSync(endpoint!.id, { intervalMs: 10 })).toMatchObject({ status: 'synced' });
    expect((await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } })).verdict.kind).toBe('answered');
  });

  it('a route still holding a revoked key cannot reconnect: invalid_api_key comes back through it', async () => {
    const { emulator } = await useEmulator();
    const route = useDeployment(emulator);
    await route.deploy(emulator.key);
    emulator.createKey();
    emulator.revokeKey(emulator.key);
    expect(await route.open(emulator.key)).toEqual({
      status: 401,
      body: { error: { code: 'invalid_api_key', message: CONNECT_MESSAGES.invalidApiKey } },
    });
    expect(emulator.endpoints()).toEqual([]);
  });
});

describe('emulator keys: which key signs for an endpoint', () => {
  it('syncs, calls and diagnostics sign with the key that connected the endpoint, whoever asks', async () => {
    const { emulator, clientWithKey } = await useEmulator();
    const keys = { A: emulator.key, B: emulator.createKey() };
    const route = await useManifestServer();
    route.serve('/r', { body: manifestOf('orderStatus') });
    const endpoint = await clientWithKey(keys.A).connect(route.url('/r'));
    await clientWithKey(keys.B).waitForSync(endpoint.id, { intervalMs: 10 });
    await clientWithKey(keys.B).sync();
    await emulator.callTool({ tool: 'orderStatus' });
    await emulator.diagnostics();
    const seen = route.requests.map((r) => `${r.method} ${signedWith(r, keys)}`);
    expect(seen).toEqual(['GET A', 'GET A', 'POST A', 'POST A']);
  });

  it('a connect of the same URL with another key rebinds it: same id, switches kept', async () => {
    const { emulator, clientWithKey } = await useEmulator();
    const keys = { A: emulator.key, B: emulator.createKey() };
    const route = await useManifestServer();
    route.serve('/r', { body: manifestOf('orderStatus', 'refundOrder') });
    const first = await clientWithKey(keys.A).connect(route.url('/r'));
    await clientWithKey(keys.A).waitForSync(first.id, { intervalMs: 10 });
    await clientWithKey(keys.A).setToolEnabled(first.id, 'refundOrder', false);

    const again = await clientWithKey(keys.B).connect(route.url('/r'));
    expect(again.id).toBe(first.id);
    expect(await clientWithKey(keys.B).waitForSync(first.id, { intervalMs: 10 })).toMatchObject({
      status: 'synced',
      tools: [
        { name: 'orderStatus', enabled: true },
        { name: 'refundOrder', enabled: false },
      ],
    });
    await emulator.callTool({ tool: 'orderStatus' });
    expect(route.requests.map((r) => `${r.method} ${signedWith(r, keys)}`)).toEqual(['GET A', 'GET B', 'POST B']);
  });

  it('Change endpoint keeps the bound key, even when another key asks for it (only a connect rebinds)', async () => {
    const { emulator, clientWithKey } = await useEmulator();
    const keys = { A: emulator.key, B: emulator.createKey() };
    const route = await useManifestServer();
    route.serve('/old', { body: manifestOf('orderStatus') });
    route.serve('/new', { body: manifestOf('orderStatus') });
    const endpoint = await clientWithKey(keys.A).connect(route.url('/old'));
    await clientWithKey(keys.A).waitForSync(endpoint.id, { intervalMs: 10 });

    const changed = await clientWithKey(keys.B).changeEndpoint(endpoint.id, route.url('/new'));
    expect(changed).toMatchObject({ id: endpoint.id, url: route.url('/new'), status: 'synced' });
    const read = route.requests.filter((r) => r.path === '/new');
    expect(read.map((r) => signedWith(r, keys))).toEqual(['A']);

    await clientWithKey(keys.B).connect(route.url('/new'));
    await clientWithKey(keys.B).waitForSync(endpoint.id, { intervalMs: 10 });
    expect(route.requests.filter((r) => r.path === '/new').map((r) => signedWith(r, keys))).toEqual(['A', 'B']);
  });
});
