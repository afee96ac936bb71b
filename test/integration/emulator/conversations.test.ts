import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useOrg() {
  const test = await useEmulator({ clock: createManualClock() });
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: test.emulator.key, apiUrl: test.emulator.url, tools: createDemoTools({ msPerSecond: 100 }) }),
    (r) => r.close(),
  );
  const endpoint = await test.client.waitForSync((await test.client.connect(route.url)).id, { intervalMs: 10 });
  return { ...test, endpoint };
}

describe('conversations and turns', () => {
  it('the agent sends 3 calls per turn; a fourth is not sent, and a new message gives 3 more', async () => {
    const { emulator } = await useOrg();
    const conversation = await emulator.startConversation();
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await emulator.agentCall(conversation.id, { tool: 'orderStatus', input: { orderNumber: `A${i}` } }));
    expect(outcomes.slice(0, 3).every((o) => o.call?.verdict.kind === 'answered')).toBe(true);
    expect(outcomes[3]).toMatchObject({ turn: 1, notSent: { reason: 'turn-limit' } });
    expect(outcomes[3]?.call).toBeUndefined();
    expect(outcomes[3]?.notSent?.message).toContain('the agent sends 3 calls per turn');
    expect(emulator.conversation(conversation.id).thread.at(-1)).toMatchObject({ kind: 'not-sent' });
    emulator.newTurn(conversation.id);
    const next = await emulator.agentCall(conversation.id, { tool: 'orderStatus', input: { orderNumber: 'A9' } });
    expect(next).toMatchObject({ turn: 2, call: { verdict: { kind: 'answered' } } });
    expect(emulator.conversation(conversation.id).turns).toEqual([3, 1]);
  });

  it('open conversations keep the last sync: a tool added later is not theirs, a removed one is still called', async () => {
    const { emulator, client } = await useEmulator({ clock: createManualClock() });
    const route = await useManifestServer();
    route.serve('/api/median', { body: manifestOf('orderStatus', 'trackParcel') });
    const endpoint = await client.waitForSync((await client.connect(route.url('/api/median'))).id, { intervalMs: 10 });
    const before = await emulator.startConversation();
    expect(before.tools.map((t) => t.name)).toEqual(['orderStatus', 'trackParcel']);

    // A deploy: trackParcel goes, refundStatus comes; the endpoint syncs.
    route.serve('/api/median', { body: manifestOf('orderStatus', 'refundStatus') });
    await client.sync(endpoint.url);
    const after = await emulator.startConversation();
    expect(after.tools.map((t) => t.name)).toEqual(['orderStatus', 'refundStatus']);

    const added = await emulator.agentCall(before.id, { tool: 'refundStatus', input: {} });
    expect(added.notSent).toMatchObject({ reason: 'not-in-conversation' });
    expect(added.notSent?.message).toContain('Open conversations keep the last sync');
    expect((await emulator.agentCall(after.id, { tool: 'refundStatus', input: {} })).call).toBeDefined();
    // The old copy still has trackParcel: the call goes to the route, which no longer declares it.
    const posts = route.requests.filter((r) => r.method === 'POST').length;
    expect((await emulator.agentCall(before.id, { tool: 'trackParcel', input: {} })).call?.tool).toBe('trackParcel');
    expect(route.requests.filter((r) => r.method === 'POST').length).toBe(posts + 1);
    expect((await emulator.agentCall(after.id, { tool: 'trackParcel', input: {} })).notSent?.reason).toBe('not-in-conversation');
  });

  it('a new conversation’s first reply waits for every endpoint’s sync, measured per endpoint', async () => {
    const { emulator, client } = await useEmulator({ clock: createManualClock() });
    const fast = await useManifestServer();
    fast.serve('/api/median', { body: manifestOf('orderStatus') });
    const slow = await useManifestServer();
    slow.serve('/api/median', { body: manifestOf('trackParcel'), delayMs: 300 });
    for (const url of [fast.url('/api/median'), slow.url('/api/median')]) await client.waitForSync((await client.connect(url)).id, { intervalMs: 10 });
    const syncsBefore = slow.requests.length;

    const conversation = await emulator.startConversation();
    expect(slow.requests.length).toBe(syncsBefore + 1);
    expect(conversation.firstReply.syncs).toHaveLength(2);
    const bySlow = conversation.firstReply.syncs.find((s) => s.url === slow.url('/api/median'))!;
    expect(bySlow.durationMs).toBeGreaterThanOrEqual(280);
    expect(conversation.firstReply.waitedMs).toBe(Math.max(...conversation.firstReply.syncs.map((s) => s.durationMs)));
  });

  it('a failed sync before the first reply keeps the last good tool set for the conversation', async () => {
    const { emulator, client } = await useEmulator({ clock: createManualClock() });
    const route = await useManifestServer();
    route.serve('/api/median', { body: manifestOf('orderStatus') });
    await client.waitForSync((await client.connect(route.url('/api/median'))).id, { intervalMs: 10 });
    route.serve('/api/median', { status: 500, body: { error: { code: 'missing_secret', message: 'x' } } });
    const conversation = await emulator.startConversation();
    expect(conversation.firstReply.syncs[0]).toMatchObject({ status: 'failed', error: 'The endpoint answered 500.' });
    expect(conversation.tools.map((t) => t.name)).toEqual(['orderStatus']);
  });
});

describe('the key-rotation recipe over the emulator’s HTTP API', () => {
  async function api(url: string, key: string, method: string, body?: unknown) {
    const response = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it('create the new key, revoke the old one: the old key is invalid_api_key at once', async () => {
    const { emulator } = await useOrg();
    const created = await api(`${emulator.url}/v1/emulator/keys`, emulator.key, 'POST');
    expect(created.status).toBe(201);
    const fresh = created.body.key as string;
    expect(fresh).toMatch(/^median_key_[A-Za-z0-9]{32}$/);
    expect((await api(`${emulator.url}/v1/tool-endpoints`, fresh, 'GET')).status).toBe(200);
    expect(await api(`${emulator.url}/v1/emulator/keys/revoke`, fresh, 'POST', { key: emulator.key })).toMatchObject({ status: 200, body: { revoked: true } });
    expect(await api(`${emulator.url}/v1/tool-endpoints`, emulator.key, 'GET')).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect(await api(`${emulator.url}/v1/emulator/keys/revoke`, fresh, 'POST', { key: `median_key_${'Q'.repeat(32)}` })).toMatchObject({ status: 400, body: { error: { code: 'unknown_key' } } });
  });

  it('revoke first: calls fail with invalid_signature and syncs show “The endpoint refused the signature” until the route is opened again', async () => {
    const test = await useEmulator({ clock: createManualClock() });
    const { emulator, client, clientWithKey } = test;
    const old = useTeardown(await startToolRouteServer({ port: 0, key: emulator.key, apiUrl: emulator.url, tools: createDemoTools() }), (r) => r.close());
    const endpoint = await client.waitForSync((await client.connect(old.url)).id, { intervalMs: 10 });
    // Create the new key over HTTP, revoke the old one first, then deploy the new key (the route now holds it).
    const fresh = (await api(`${emulator.url}/v1/emulator/keys`, emulator.key, 'POST')).body.key as string;
    await api(`${emulator.url}/v1/emulator/keys/revoke`, fresh, 'POST', { key: emulator.key });
    const deployed = useTeardown(await startToolRouteServer({ port: 0, key: fresh, apiUrl: emulator.url, tools: createDemoTools() }), (r) => r.close());
    const changed = await clientWithKey(fresh).changeEndpoint(endpoint.id, deployed.url);
    expect(changed).toMatchObject({ status: 'failed', error: "The endpoint refused the signature. Open the route once to reconnect it with that deployment’s MEDIAN_KEY." });
    const refused = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1' } });
    expect(refused.status).toBe(401);
    expect(refused.verdict.callError).toContain('invalid_signature');
    // Open the route once with the new key: bound to it, synced, calls signed right.
    const reconnected = await clientWithKey(fresh).waitForSync((await clientWithKey(fresh).connect(deployed.url)).id, { intervalMs: 10 });
    expect(reconnected.status).toBe('synced');
    expect((await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1' } })).verdict.kind).toBe('answered');
  });
});
