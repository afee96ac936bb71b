import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import type { EmulatedCall } from '../../../src/emulator/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const MINUTE = 60_000;

/** The example route connected and synced, on an emulator whose time the test drives. */
async function useOrg(options: { reviewer?: 'approve' | 'hand-to-teammate' } = {}) {
  const clock = createManualClock();
  const test = await useEmulator({ clock, limits: { reviewerDelayMs: 3_000 }, ...options });
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: test.emulator.key, apiUrl: test.emulator.url, tools: createDemoTools({ msPerSecond: 100 }) }),
    (r) => r.close(),
  );
  const endpoint = await test.client.waitForSync((await test.client.connect(route.url)).id, { intervalMs: 10 });
  const runs: EmulatedCall[] = [];
  test.emulator.onRun((call) => runs.push(call));
  return { ...test, clock, endpoint, runs, routeUrl: route.url };
}

async function api(url: string, key: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('risk levels as Median runs them', () => {
  it('low runs at once, medium after the customer’s yes, both without approvedBy', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation({ visitor: { verified: true, externalId: 'user_1' } });
    const low = await org.emulator.agentCall(conversation.id, { tool: 'orderStatus', input: { orderNumber: 'A1' } });
    expect(low.call).toMatchObject({ risk: 'low', status: 200, verdict: { kind: 'answered' } });
    expect(low.call?.approvedBy).toBeUndefined();
    expect(low.call?.toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    const medium = await org.emulator.agentCall(conversation.id, { tool: 'chargeCard', input: { orderNumber: 'A1', amount: 5 } });
    expect(medium.call).toMatchObject({ risk: 'medium', verdict: { kind: 'threw' } });
    expect(medium.call?.approvedBy).toBeUndefined();
    expect(medium.notes.join(' ')).toMatch(/customer's yes/);
  });

  it('reviewed waits for the reviewer, who approves after its delay as “The reviewer”', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const held = await org.emulator.agentCall(conversation.id, { tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    expect(held.call).toBeUndefined();
    expect(held.approval).toMatchObject({ state: 'pending', waitingFor: 'reviewer', risk: 'reviewed' });
    expect(held.approval?.id).toMatch(/^apr_[0-9a-f]{24}$/);
    org.clock.advance(2_999);
    expect(org.emulator.approval(held.approval!.id).state).toBe('pending');
    org.clock.advance(1);
    await expect.poll(() => org.runs.length).toBe(1);
    expect(org.runs[0]).toMatchObject({ toolCallId: held.approval!.id, approvedBy: 'The reviewer', status: 200 });
    expect(JSON.parse(org.runs[0]!.body ?? '{}').result.approvedBy).toBe('The reviewer');
    expect(org.emulator.approval(held.approval!.id)).toMatchObject({ state: 'approved', decidedBy: 'The reviewer' });
  });

  it('a reviewer that hands the call on leaves it to a teammate; high always waits for one', async () => {
    const org = await useOrg({ reviewer: 'hand-to-teammate' });
    const conversation = await org.emulator.startConversation();
    const reviewed = await org.emulator.agentCall(conversation.id, { tool: 'cancelOrder', input: { orderNumber: 'A1' } });
    org.clock.advance(3_000);
    expect(org.emulator.approval(reviewed.approval!.id)).toMatchObject({ state: 'pending', waitingFor: 'teammate' });
    const high = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    expect(high.approval).toMatchObject({ waitingFor: 'teammate', risk: 'high' });
    org.clock.advance(4 * MINUTE); // still inside the route's five-minute signature window
    expect(org.emulator.approvals('pending').map((a) => a.id).sort()).toEqual([reviewed.approval!.id, high.approval!.id].sort());
    const run = await org.emulator.approve(high.approval!.id, { as: 'Dana Reyes' });
    expect(run).toMatchObject({ toolCallId: high.approval!.id, approvedBy: 'Dana Reyes', verdict: { kind: 'answered' } });
    const denied = org.emulator.deny(reviewed.approval!.id, { as: 'Sam' });
    expect(denied).toMatchObject({ state: 'denied', decidedBy: 'Sam' });
    expect(org.emulator.conversation(conversation.id).thread.map((e) => e.kind)).toEqual(['waiting', 'note', 'waiting', 'ran', 'declined']);
  });
});

describe('every approval and run error, as the docs word it', () => {
  it('approval_settled, approval_not_found', async () => {
    const org = await useOrg();
    const request = org.emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    org.emulator.deny(request.id);
    await expect(org.emulator.approve(request.id)).rejects.toMatchObject({ code: 'approval_settled', message: 'This request has already been reviewed.' });
    expect(() => org.emulator.deny(request.id)).toThrow(expect.objectContaining({ code: 'approval_settled' }));
    await expect(org.emulator.approve('apr_000000000000000000000000')).rejects.toMatchObject({
      code: 'approval_not_found',
      message: 'This request is unavailable in your inbox.',
    });
  });

  it('approval_expired: the conversation ended, or no decision in time', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const held = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    org.emulator.endConversation(conversation.id);
    await expect(org.emulator.approve(held.approval!.id)).rejects.toMatchObject({
      code: 'approval_expired',
      message: 'This request expired because the conversation ended.',
    });
    const waiting = org.emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    org.clock.advance(24 * 60 * MINUTE);
    expect(org.emulator.approval(waiting.id)).toMatchObject({ state: 'expired', expiredBecause: 'no-decision' });
    await expect(org.emulator.approve(waiting.id)).rejects.toMatchObject({ code: 'approval_expired', message: 'This request expired without a decision.' });
  });

  it('tool_not_found, both messages, when a teammate runs a tool', async () => {
    const org = await useOrg();
    await expect(org.emulator.runAsTeammate({ tool: 'noSuchTool' })).rejects.toMatchObject({ code: 'tool_not_found', message: 'noSuchTool is not one of your switched on tools.' });
    await org.client.setToolEnabled(org.endpoint.id, 'orderStatus', false);
    await expect(org.emulator.runAsTeammate({ tool: 'orderStatus', input: { orderNumber: 'A1' } })).rejects.toMatchObject({
      code: 'tool_not_found',
      message: 'orderStatus is unavailable or disabled. Check its settings in Agent > Tools.',
    });
  });

  it('invalid_input in the approval wording, and invalid_request for conversationId with as', async () => {
    const org = await useOrg();
    await expect(org.emulator.runAsTeammate({ tool: 'refundOrder', input: { amount: 5 } })).rejects.toMatchObject({ code: 'invalid_input', message: 'orderNumber is needed to run this.' });
    await expect(org.emulator.runAsTeammate({ tool: 'refundOrder', input: { orderNumber: 'A1', amount: 'five' } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'amount has to be a number.',
    });
    const conversation = await org.emulator.startConversation();
    await expect(org.emulator.runAsTeammate({ tool: 'orderStatus', conversationId: conversation.id, as: 'user_1' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'Use conversationId or as, not both. A conversation uses its stored visitor identity.',
    });
    const run = await org.emulator.runAsTeammate({ tool: 'orderStatus', input: { orderNumber: 'A1' }, as: 'user_1', by: 'Dana' });
    expect(run).toMatchObject({ approvedBy: 'Dana', visitor: { verified: true, externalId: 'user_1' }, verdict: { kind: 'answered' } });
    expect(run.toolCallId).toMatch(/^apr_/);
  });

  it('too_many_running: three tools already running in the conversation', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const ids: string[] = [];
    for (let turn = 0; turn < 4; turn++) {
      org.emulator.newTurn(conversation.id);
      ids.push((await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } })).approval!.id);
    }
    // Runs that never report stay running until the hourly check.
    for (const id of ids.slice(0, 3)) expect((await org.emulator.approve(id, { fault: 'no-result' })).isReported).toBe(false);
    expect(org.emulator.conversation(conversation.id).running).toHaveLength(3);
    await expect(org.emulator.approve(ids[3]!)).rejects.toMatchObject({
      code: 'too_many_running',
      message: 'Three tools are already running in this conversation. Wait for one to finish.',
    });
    expect(org.emulator.approval(ids[3]!).state).toBe('pending');
  });

  it('conversation_archived', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const held = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    org.emulator.setArchived(conversation.id, true);
    await expect(org.emulator.approve(held.approval!.id)).rejects.toMatchObject({
      code: 'conversation_archived',
      message: 'Move this conversation out of the archive before running a tool.',
    });
    await expect(org.emulator.runAsTeammate({ tool: 'orderStatus', conversationId: conversation.id })).rejects.toMatchObject({ code: 'conversation_archived' });
    org.emulator.setArchived(conversation.id, false);
    expect((await org.emulator.approve(held.approval!.id)).verdict.kind).toBe('answered');
  });

  it('the same errors over the HTTP API, with OUR statuses', async () => {
    const org = await useOrg();
    const base = `${org.emulator.url}/v1/emulator`;
    const created = await api(`${base}/conversations`, org.emulator.key, 'POST', { visitor: { verified: false } });
    expect(created.status).toBe(201);
    const id = created.body.conversation.id as string;
    const held = await api(`${base}/conversations/${id}/calls`, org.emulator.key, 'POST', { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    const approvalId = held.body.outcome.approval.id as string;
    expect((await api(`${base}/approvals?state=pending`, org.emulator.key, 'GET')).body.approvals.map((a: { id: string }) => a.id)).toEqual([approvalId]);
    const approved = await api(`${base}/approvals/${approvalId}/approve`, org.emulator.key, 'POST', { as: 'Dana' });
    expect(approved).toMatchObject({ status: 200, body: { call: { approvedBy: 'Dana', toolCallId: approvalId } } });
    expect(await api(`${base}/approvals/${approvalId}/deny`, org.emulator.key, 'POST', {})).toMatchObject({ status: 409, body: { error: { code: 'approval_settled' } } });
    expect(await api(`${base}/approvals/apr_nope/approve`, org.emulator.key, 'POST', {})).toMatchObject({ status: 404, body: { error: { code: 'approval_not_found' } } });
    expect(await api(`${base}/runs`, org.emulator.key, 'POST', { tool: 'orderStatus', conversationId: id, as: 'u' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await api(`${base}/runs`, org.emulator.key, 'POST', { tool: 'refundOrder', input: { orderNumber: 'A1' } })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'amount is needed to run this.' } },
    });
    await api(`${base}/conversations/${id}/archive`, org.emulator.key, 'POST', {});
    expect(await api(`${base}/runs`, org.emulator.key, 'POST', { tool: 'orderStatus', conversationId: id })).toMatchObject({ status: 409, body: { error: { code: 'conversation_archived' } } });
    await api(`${base}/conversations/${id}/unarchive`, org.emulator.key, 'POST', {});
    const late = await api(`${base}/conversations/${id}/calls`, org.emulator.key, 'POST', { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    await api(`${base}/conversations/${id}/end`, org.emulator.key, 'POST', {});
    expect(await api(`${base}/approvals/${late.body.outcome.approval.id}/approve`, org.emulator.key, 'POST', {})).toMatchObject({
      status: 410,
      body: { error: { code: 'approval_expired', message: 'This request expired because the conversation ended.' } },
    });
  });
});

describe('approved runs that fail', () => {
  it('“The tool returned no result…” once the hourly check sees 10 minutes of nothing', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const held = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    org.clock.advance(5 * MINUTE); // the teammate approves five minutes into the hour
    await org.emulator.approve(held.approval!.id, { fault: 'no-result', as: 'Dana' });
    org.clock.advance(55 * MINUTE); // the check at minute 60 sees 55 minutes of nothing
    await expect.poll(() => org.runs.length).toBe(1);
    const marked = org.runs[0]!;
    expect(marked.runError).toBe('The tool returned no result. Check whether the action completed before retrying.');
    expect(marked.verdict.didNotRun).toBe('refundOrder did not run: The tool returned no result. Check whether the action completed before retrying.');
    expect(org.emulator.conversation(conversation.id)).toMatchObject({ isUnread: true, running: [] });

    // Approved at minute 62: the check at minute 120 is the first to see 10 minutes; it shows 58 minutes later.
    // (Signed an hour ahead of the route's clock, the call is refused; its result never counts anyway.)
    org.clock.advance(2 * MINUTE);
    const next = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A2', amount: 5 } });
    await org.emulator.approve(next.approval!.id, { fault: 'no-result' });
    org.clock.advance(57 * MINUTE);
    expect(org.runs).toHaveLength(1);
    org.clock.advance(1 * MINUTE);
    await expect.poll(() => org.runs.length).toBe(2);
  });

  it('“The tool is no longer available.” for a tool switched off between approval request and run', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const held = await org.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } });
    await org.client.setToolEnabled(org.endpoint.id, 'refundOrder', false);
    const run = await org.emulator.approve(held.approval!.id, { as: 'Dana' });
    expect(run).toMatchObject({ status: null, runError: 'The tool is no longer available.', verdict: { didNotRun: 'refundOrder did not run: The tool is no longer available.' } });
    expect(org.emulator.conversation(conversation.id).isUnread).toBe(true);
  });

  it('an approved call that throws at the route: the thread shows “<tool> did not run: <error>”', async () => {
    const org = await useOrg();
    const conversation = await org.emulator.startConversation();
    const run = await org.emulator.runAsTeammate({ tool: 'chargeCard', input: { orderNumber: 'A1', amount: 5 }, conversationId: conversation.id, by: 'Dana' });
    expect(run.verdict).toMatchObject({
      kind: 'threw',
      didNotRun: 'chargeCard did not run: The card processor is offline. Nothing was charged.',
      agentSees: 'chargeCard did not run: The card processor is offline. Nothing was charged.',
    });
    expect(run.verdict.warnings.map((w) => w.code)).toContain('approved_call_failed');
    const { thread, isUnread } = org.emulator.conversation(conversation.id);
    expect(isUnread).toBe(true);
    expect(thread.at(-1)).toMatchObject({ kind: 'did-not-run', text: run.verdict.didNotRun });
  });
});
