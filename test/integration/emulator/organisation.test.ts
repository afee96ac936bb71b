import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const PROD = 'https://acme.example/api/median';
const MATE = 'https://dana-7f3a.loca.lt/api/median';

/** The emulator as an organisation: the example route connected on loopback and synced, maybe beside held endpoints. */
async function useOrganisation() {
  // A clock the test drives: the reviewer never decides on its own here.
  const test = await useEmulator({ clock: createManualClock() });
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: test.emulator.key, apiUrl: test.emulator.url, tools: createDemoTools({ msPerSecond: 100 }) }),
    (r) => r.close(),
  );
  const connectRoute = async () => test.client.waitForSync((await test.client.connect(route.url)).id, { intervalMs: 10 });
  return { ...test, routeUrl: route.url, connectRoute };
}

async function post(url: string, key: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('emulator: production and teammate endpoints it holds', () => {
  it('holds a production endpoint and a teammate’s tunnel, synced by the same rules, answering their own calls', async () => {
    const org = await useOrganisation();
    const prod = await org.emulator.holdEndpoint({ url: PROD, tools: ['shipParcel', 'trackParcel'] });
    expect(prod).toMatchObject({ url: PROD, status: 'synced', tools: [{ name: 'shipParcel', enabled: true }, { name: 'trackParcel', enabled: true }] });
    // Over the API too, as the demo and scripts do it.
    const held = await post(`${org.emulator.url}/v1/emulator/endpoints`, org.emulator.key, { url: MATE, tools: ['orderStatus'] });
    expect(held.status).toBe(201);
    expect(held.body.endpoint).toMatchObject({ url: MATE, status: 'synced' });
    expect((await org.client.listEndpoints()).map((e) => e.url)).toEqual([PROD, MATE]);

    // The route connected after them clashes with the teammate's orderStatus: the docs' message names its URL.
    const mine = await org.connectRoute();
    expect(mine).toMatchObject({ status: 'failed', error: `The tool name "orderStatus" already comes from ${MATE}. Tool names have to be unique across every endpoint.` });

    const call = await org.emulator.callTool({ tool: 'trackParcel' });
    expect(call).toMatchObject({ endpointUrl: PROD, status: 200, verdict: { kind: 'answered' } });
  });

  it('refuses a held endpoint the cloud would refuse, with the docs’ codes', async () => {
    const org = await useOrganisation();
    await expect(org.emulator.holdEndpoint({ url: 'http://acme.example/api/median', tools: ['x'] })).rejects.toMatchObject({ code: 'invalid_url' });
    const bad = await post(`${org.emulator.url}/v1/emulator/endpoints`, org.emulator.key, { url: PROD, tools: 'orderStatus' });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
    const noKey = await post(`${org.emulator.url}/v1/emulator/endpoints`, 'median_key_wrongwrongwrongwrongwrongwrongwrong', { url: PROD, tools: ['x'] });
    expect(noKey).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
  });
});

describe('emulator: approved reviewed and high calls', () => {
  it('an approved call carries the approval request’s id as toolCallId and who approved it', async () => {
    const org = await useOrganisation();
    await org.connectRoute();
    const request = org.emulator.requestApproval({ tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    expect(request).toMatchObject({ tool: 'cancelOrder', risk: 'reviewed', state: 'pending' });
    expect(request.id).toMatch(/^apr_[0-9a-f]{24}$/);
    const call = await org.emulator.approve(request.id, { approvedBy: 'Dana Reyes' });
    expect(call).toMatchObject({ toolCallId: request.id, approvedBy: 'Dana Reyes', status: 200 });
    // The route saw the approver in the signed body (cancelOrder echoes it).
    expect(JSON.parse(call.body ?? '{}').result).toMatchObject({ approvedBy: 'Dana Reyes' });
    const high = await org.emulator.approve(org.emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } }).id);
    expect(high).toMatchObject({ risk: 'high', approvedBy: 'A teammate', toolCallId: expect.stringMatching(/^apr_/) });
    await expect(org.emulator.approve(request.id)).rejects.toMatchObject({ code: 'approval_settled', message: 'This request has already been reviewed.' });
    await expect(org.emulator.approve('apr_nope')).rejects.toMatchObject({ code: 'approval_not_found' });
  });

  it('a reviewed call the agent made without an id gets an approval request id and “The reviewer”', async () => {
    const org = await useOrganisation();
    await org.connectRoute();
    const call = await org.emulator.callTool({ tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    expect(call.toolCallId).toMatch(/^apr_[0-9a-f]{24}$/);
    expect(call.approvedBy).toBe('The reviewer');
  });

  it('“The tool is no longer available.” when the tool was switched off or moved before the approval', async () => {
    const org = await useOrganisation();
    const mine = await org.connectRoute();
    const off = org.emulator.requestApproval({ tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    await org.client.setToolEnabled(mine.id, 'cancelOrder', false);
    const call = await org.emulator.approve(off.id, { approvedBy: 'Dana' });
    expect(call).toMatchObject({ runError: 'The tool is no longer available.', status: null, toolCallId: off.id });
    expect(call.verdict.agentSees).toBe('cancelOrder did not run: The tool is no longer available.');

    await org.client.setToolEnabled(mine.id, 'cancelOrder', true);
    const moved = org.emulator.requestApproval({ tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    await org.client.removeEndpoint(mine.id);
    await org.emulator.holdEndpoint({ url: PROD, tools: ['cancelOrder'] });
    expect((await org.emulator.approve(moved.id)).runError).toBe('The tool is no longer available.');
  });

  it('“The tool request failed…” is reachable over the API', async () => {
    const org = await useOrganisation();
    await org.connectRoute();
    const created = await post(`${org.emulator.url}/v1/emulator/approvals`, org.emulator.key, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    expect(created.status).toBe(201);
    const id = (created.body.approval as { id: string }).id;
    const failed = await post(`${org.emulator.url}/v1/emulator/approvals/${id}/approve`, org.emulator.key, { approvedBy: 'Dana', fault: 'request-failed' });
    expect(failed).toMatchObject({
      status: 200,
      body: { call: { toolCallId: id, approvedBy: 'Dana', runError: 'The tool request failed. Check the result before retrying.' } },
    });
    const again = await post(`${org.emulator.url}/v1/emulator/approvals/${id}/approve`, org.emulator.key, {});
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'approval_settled' } } });
  });
});
