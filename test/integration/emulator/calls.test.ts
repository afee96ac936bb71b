import { describe, expect, it, vi } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import type { EmulatedCall } from '../../../src/emulator/index.js';
import { useEmulator, useManifestServer, manifestOf, type TestEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The emulator with the example route connected directly on loopback and synced. */
async function useSyncedRoute(limits = {}): Promise<TestEmulator & { routeUrl: string; endpointId: string }> {
  const test = await useEmulator({ limits });
  const route = useTeardown(
    await startToolRouteServer({
      port: 0,
      key: test.emulator.key,
      apiUrl: test.emulator.url,
      tools: createDemoTools({ msPerSecond: 100 }),
    }),
    (r) => r.close(),
  );
  const connected = await test.client.connect(route.url);
  const endpoint = await test.client.waitForSync(connected.id, { intervalMs: 10 });
  expect(endpoint.status).toBe('synced');
  return { ...test, routeUrl: route.url, endpointId: endpoint.id };
}

describe('emulator: signed tool calls and what the agent sees', () => {
  it.each<[string, string, Record<string, unknown>, EmulatedCall['verdict']['kind'], number | null]>([
    ['a result', 'orderStatus', { orderNumber: 'A1001' }, 'answered', 200],
    ['a refusal for an unverified visitor', 'lookupCustomer', {}, 'refused', 200],
    ['an unknown outcome', 'refundOrder', { orderNumber: 'A1001', amount: 900 }, 'unknown-outcome', 200],
    ['a thrown error', 'chargeCard', { orderNumber: 'A1001', amount: 5 }, 'threw', 200],
    ['input that misses a field', 'orderStatus', {}, 'invalid-input', 400],
    ['an answer over 100 KB', 'exportHistory', { size: 'huge' }, 'not-answering', 200],
    ['no answer within the call limit', 'slowReport', { seconds: 10 }, 'not-answering', null],
  ])('%s → %s', async (_name, tool, input, kind, status) => {
    const { emulator } = await useSyncedRoute({ callTimeoutMs: 400 });
    const call = await emulator.callTool({ tool, input });
    expect(call.verdict.kind).toBe(kind);
    expect(call.status).toBe(status);
    // Approved (reviewed/high) calls carry the approval request's id; the agent's own calls `call_` + 32 hex.
    expect(call.toolCallId).toMatch(call.risk === 'reviewed' || call.risk === 'high' ? /^apr_[0-9a-f]{24}$/ : /^call_[0-9a-f]{32}$/);
    expect(call.conversationId).toMatch(/^conv_[0-9a-f]+$/);
  });

  it('passes the docs texts through: refusal, unknown outcome, timeout', async () => {
    const { emulator } = await useSyncedRoute({ callTimeoutMs: 400 });
    const refused = await emulator.callTool({ tool: 'lookupCustomer' });
    expect(refused.verdict.agentSees).toBe('not_signed_in: Sign in to see orders.');
    const verified = await emulator.callTool({
      tool: 'lookupCustomer',
      visitor: { verified: true, externalId: 'user_1', name: 'Ada' },
    });
    expect(verified.verdict.kind).toBe('answered');
    const unknown = await emulator.callTool({ tool: 'refundOrder', input: { orderNumber: 'A7', amount: 900 } });
    expect(unknown.verdict.agentSees).toBe(
      'payment_pending: The refund of $900 for A7 is waiting on the payment provider. The action may have completed. Inspect its state before retrying and reuse the same tool call id.',
    );
    const slow = await emulator.callTool({ tool: 'slowReport', input: { seconds: 10 } });
    expect(slow.verdict.callError).toBe('The endpoint did not answer in time.');
    expect(slow.durationMs).toBeLessThan(2_000);
  });

  it('takes the risk from the synced manifest and sets approvedBy like Median does', async () => {
    const { emulator } = await useSyncedRoute();
    const reviewed = await emulator.callTool({ tool: 'cancelOrder', input: { orderNumber: 'A1' }, toolCallId: 'apr_1' });
    expect(reviewed).toMatchObject({ risk: 'reviewed', approvedBy: 'The reviewer', toolCallId: 'apr_1' });
    expect(JSON.parse(reviewed.body ?? '{}').result.approvedBy).toBe('The reviewer');
    const low = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1' } });
    expect(low.risk).toBe('low');
    expect(low.approvedBy).toBeUndefined();
  });

  it('refuses unknown and switched-off tools with tool_not_found and the docs messages', async () => {
    const { emulator, client, endpointId } = await useSyncedRoute();
    await expect(emulator.callTool({ tool: 'nope' })).rejects.toMatchObject({
      code: 'tool_not_found',
      message: 'nope is not one of your switched on tools.',
    });
    await client.setToolEnabled(endpointId, 'chargeCard', false);
    await expect(emulator.callTool({ tool: 'chargeCard' })).rejects.toMatchObject({
      code: 'tool_not_found',
      message: 'chargeCard is unavailable or disabled. Check its settings in Agent > Tools.',
    });
  });

  it('does not follow a redirect on a call', async () => {
    const { client, emulator } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/r', { body: manifestOf('orderStatus') });
    const connected = await client.connect(route.url('/r'));
    await client.waitForSync(connected.id, { intervalMs: 10 });
    route.serve('/r', { status: 307, headers: { location: route.url('/elsewhere') } });
    const call = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1' } });
    expect(call.verdict).toMatchObject({ kind: 'not-answering', callError: 'The endpoint redirected, which tool calls never follow.' });
    expect(route.requests.some((r) => r.path === '/elsewhere')).toBe(false);
    const post = route.requests.find((r) => r.method === 'POST');
    expect(JSON.parse(post?.body ?? '{}')).toMatchObject({ tool: 'orderStatus', context: { risk: 'low', visitor: { verified: false } } });
  });

  it('asks for diagnostics and keeps the first 2,000 characters', async () => {
    const { emulator, routeUrl } = await useSyncedRoute();
    const diagnostics = await emulator.diagnostics(routeUrl);
    expect(diagnostics.status).toBe(200);
    expect(JSON.parse(diagnostics.body ?? '{}').error.code).toBe('diagnostics_unsupported');

    const { client, emulator: other } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/d', { body: { result: { log: 'z'.repeat(5_000) } } });
    await client.connect(route.url('/d'));
    const long = await other.diagnostics();
    expect(long.body).toHaveLength(2_000);
    expect(JSON.parse(route.requests.find((r) => r.method === 'POST')?.body ?? '{}')).toEqual({ op: 'diagnostics' });
  });
});

describe('emulator: traffic generator', () => {
  it('makes plausible calls to switched-on tools and stops', async () => {
    const { emulator, client, endpointId } = await useSyncedRoute({ callTimeoutMs: 400 });
    for (const tool of ['slowReport', 'exportHistory', 'chargeCard', 'refundOrder']) {
      await client.setToolEnabled(endpointId, tool, false);
    }
    const calls: EmulatedCall[] = [];
    const traffic = emulator.startTraffic({ intervalMs: 10, onCall: (call) => calls.push(call) });
    // Visitors are picked at random and a conversation goes on 70 % of the time: wait until both kinds came.
    await vi.waitFor(
      () => {
        expect(calls.length).toBeGreaterThanOrEqual(12);
        expect(new Set(calls.map((c) => c.visitor.verified)).size).toBe(2);
      },
      { timeout: 10_000, interval: 20 },
    );
    traffic.stop();
    const seen = calls.length;

    for (const call of calls) {
      expect(['orderStatus', 'lookupCustomer', 'cancelOrder']).toContain(call.tool);
      expect(call.toolCallId).toMatch(call.risk === 'reviewed' ? /^apr_[0-9a-f]{24}$/ : /^call_[0-9a-f]{32}$/);
      expect(call.conversationId).toMatch(/^conv_/);
      // Inputs follow each tool's schema, so the route accepts them.
      expect(call.verdict.kind).not.toBe('invalid-input');
      expect(call.verdict.kind).not.toBe('not-answering');
      if (call.tool === 'orderStatus') expect(call.input.orderNumber).toMatch(/^A-\d{5}$/);
    }
    expect(new Set(calls.map((c) => c.visitor.verified)).size).toBe(2);

    // Stopped: no more calls arrive, even after several intervals.
    const settle = await emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1' } });
    expect(settle.verdict.kind).toBe('answered');
    expect(calls.length).toBe(seen);
  });

  it('stops on its signal and when the emulator closes', async () => {
    const { emulator } = await useSyncedRoute();
    const abort = new AbortController();
    const calls: EmulatedCall[] = [];
    emulator.startTraffic({ intervalMs: 10, signal: abort.signal, onCall: (call) => calls.push(call) });
    await vi.waitFor(() => expect(calls.length).toBeGreaterThan(0), { timeout: 5_000, interval: 20 });
    abort.abort();
    const other = emulator.startTraffic({ intervalMs: 10 });
    await emulator.close();
    other.stop(); // idempotent after close
  });
});
