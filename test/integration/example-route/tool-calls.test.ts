import { describe, expect, it, vi } from 'vitest';
import { checkManifest } from '../../../src/median/index.js';
import { createToolRoute, defineTool, p } from '../../../examples/tools-route/index.js';
import { signedGet, signedPost, toolCall, useToolRoute } from './route-client.js';

describe('example route: manifest (signed GET)', () => {
  it('serves version 1 with every demo tool, passing every sync rule', async () => {
    const route = await useToolRoute();
    const answer = await signedGet(route.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(checkManifest(answer.body)).toEqual([]);
    expect(answer.body.version).toBe(1);
    expect(answer.body.tools.map((t: { name: string; risk: string }) => [t.name, t.risk])).toEqual([
      ['orderStatus', 'low'],
      ['lookupCustomer', 'low'],
      ['cancelOrder', 'reviewed'],
      ['refundOrder', 'high'],
      ['chargeCard', 'medium'],
      ['slowReport', 'low'],
      ['exportHistory', 'low'],
    ]);
  });

  it('turns built fields into a JSON Schema object without extra properties', async () => {
    const route = await useToolRoute();
    const tools = (await signedGet(route.url)).body.tools as Array<{ name: string; inputSchema: unknown }>;
    expect(tools.find((t) => t.name === 'cancelOrder')?.inputSchema).toEqual({
      type: 'object',
      properties: {
        orderNumber: { type: 'string', description: 'The order to cancel.' },
        reason: { type: 'string', enum: ['changed_mind', 'too_slow', 'other'] },
        notifyCustomer: { type: 'boolean', description: 'Send the cancellation email; default true.' },
      },
      required: ['orderNumber'],
      additionalProperties: false,
    });
    expect(tools.find((t) => t.name === 'lookupCustomer')?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });
});

describe('example route: demo tools, one per verdict', () => {
  it('orderStatus answers with a navigate button', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall('orderStatus', { orderNumber: 'A1001' }));
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual({
      orderNumber: 'A1001',
      status: expect.any(String),
      eta: expect.any(String),
      medianNavigateTo: '/orders/A1001',
    });
  });

  it('lookupCustomer refuses an unverified visitor and answers a verified one', async () => {
    const route = await useToolRoute();
    const refused = await signedPost(route.url, toolCall('lookupCustomer'));
    expect(refused.body).toEqual({ result: { ok: false, reason: 'not_signed_in', detail: 'Sign in to see orders.' } });
    const answered = await signedPost(
      route.url,
      toolCall('lookupCustomer', {}, { visitor: { verified: true, externalId: 'cus_42', name: 'Ada' } }),
    );
    expect(answered.body.result).toMatchObject({ customerId: 'cus_42', name: 'Ada' });
  });

  it('cancelOrder sees who approved it', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(
      route.url,
      toolCall('cancelOrder', { orderNumber: 'A7', reason: 'too_slow' }, { risk: 'reviewed', approvedBy: 'The reviewer' }),
    );
    expect(answer.body.result).toEqual({
      orderNumber: 'A7',
      cancelled: true,
      reason: 'too_slow',
      notified: true,
      approvedBy: 'The reviewer',
    });
  });

  it.each([
    [100, { orderNumber: 'A1', refunded: 100, status: 'refunded' }],
    [900, { outcome: 'unknown', reason: 'payment_pending', detail: expect.stringContaining('$900') }],
  ])('refundOrder of %i is decided by the amount', async (amount, result) => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall('refundOrder', { orderNumber: 'A1', amount }, { risk: 'high' }));
    expect(answer).toMatchObject({ status: 200, body: { result } });
  });

  it('chargeCard throws: 200 execution_failed with the thrown message, logged on the server', async () => {
    const logged: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void logged.push(message) };
    const route = await useToolRoute({ logger });
    const answer = await signedPost(route.url, toolCall('chargeCard', { orderNumber: 'A1', amount: 5 }));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      error: { code: 'execution_failed', message: 'The card processor is offline. Nothing was charged.' },
    });
    expect(logged).toEqual(['Median: the tool "chargeCard" threw.']);
  });

  it('slowReport waits `seconds` scaled by msPerSecond (default 2)', async () => {
    const route = await useToolRoute(); // 1 ms per "second"
    const long = await signedPost(route.url, toolCall('slowReport', { seconds: 11 }));
    expect(long.body.result).toEqual({ report: 'ready', tookSeconds: 11 });
    const byDefault = await signedPost(route.url, toolCall('slowReport'));
    expect(byDefault.body.result.tookSeconds).toBe(2);
  });

  it.each([
    [{}, 5_000, 7_000],
    [{ size: 'huge' }, 100 * 1024, Infinity],
  ])('exportHistory %j answers between %i and %i characters', async (input, min, max) => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall('exportHistory', input));
    const length = JSON.stringify(answer.body.result).length;
    expect(length).toBeGreaterThan(min);
    expect(length).toBeLessThan(max);
  });
});

describe('example route: idempotency by toolCallId', () => {
  it('answers a repeat with the first result plus repeat: true', async () => {
    const route = await useToolRoute();
    const call = toolCall('refundOrder', { orderNumber: 'A1', amount: 20 });
    const first = await signedPost(route.url, call);
    const again = await signedPost(route.url, { ...call, input: { orderNumber: 'A1', amount: 30 } });
    expect(first.body.result).toEqual({ orderNumber: 'A1', refunded: 20, status: 'refunded' });
    expect(again.body.result).toEqual({ ...first.body.result, repeat: true });
    const other = await signedPost(route.url, toolCall('refundOrder', { orderNumber: 'A1', amount: 30 }));
    expect(other.body.result.repeat).toBeUndefined();
  });

  it('repeats an execution_failed answer as it was', async () => {
    const route = await useToolRoute();
    const call = toolCall('chargeCard', { orderNumber: 'A1', amount: 5 });
    const first = await signedPost(route.url, call);
    expect(await signedPost(route.url, call)).toMatchObject({ status: 200, body: first.body });
  });

  it('runs a tool once for concurrent calls with the same toolCallId', async () => {
    let runs = 0;
    const counted = defineTool({
      name: 'countedTool',
      description: 'Counts its runs.',
      risk: 'low',
      input: {},
      execute: async () => {
        runs += 1;
        await new Promise((resolve) => setImmediate(resolve));
        return { runs };
      },
    });
    const route = await useToolRoute({ tools: [counted] });
    const call = toolCall('countedTool');
    const answers = await Promise.all([signedPost(route.url, call), signedPost(route.url, call)]);
    expect(runs).toBe(1);
    expect(answers.map((a) => a.body.result.repeat ?? false).sort()).toEqual([false, true]);
  });

  it('forgets the oldest toolCallId past its limit', async () => {
    const route = await useToolRoute({ rememberCalls: 2 });
    const [a, b, c] = ['A1', 'A2', 'A3'].map((orderNumber) => toolCall('orderStatus', { orderNumber }));
    for (const call of [a, b, c]) await signedPost(route.url, call);
    expect((await signedPost(route.url, c)).body.result.repeat).toBe(true);
    expect((await signedPost(route.url, a)).body.result.repeat).toBeUndefined();
  });

  it('aborts a tool whose caller hung up, and does not keep its answer', async () => {
    let aborted = 0;
    let runs = 0;
    const waits = defineTool({
      name: 'waitsForever',
      description: 'Waits until the caller hangs up.',
      risk: 'low',
      input: {},
      execute: (_input, { signal }) =>
        new Promise((_resolve, reject) => {
          runs += 1;
          signal.addEventListener('abort', () => {
            aborted += 1;
            reject(new Error('caller left'));
          });
        }),
    });
    const route = await useToolRoute({ tools: [waits] });
    const call = toolCall('waitsForever');
    await expect(signedPost(route.url, call, { timeoutMs: 200 })).rejects.toThrow();
    await vi.waitFor(() => expect(aborted).toBe(1), { timeout: 5_000 });
    await expect(signedPost(route.url, call, { timeoutMs: 200 })).rejects.toThrow();
    await vi.waitFor(() => expect(runs).toBe(2), { timeout: 5_000 });
  });
});

describe('example route: load errors', () => {
  it.each([
    [{ name: '1bad' }, 'Median: the tool name "1bad" is invalid.'],
    [{ description: '' }, 'Median: the tool "okTool" has no description.'],
    [{ risk: 'extreme' }, 'Median: the tool "okTool" has risk "extreme".'],
    [{ input: { id: { type: 'string' } } }, 'Median: the field "id" on "okTool" was not built with the schema builder.'],
    [{ execute: undefined }, 'Median: the tool "okTool" has no execute function.'],
  ])('createToolRoute throws for %j', (change, start) => {
    const tool = { name: 'okTool', description: 'Fine.', risk: 'low', input: { id: p.string() }, execute: () => 1, ...change };
    expect(() => createToolRoute({ key: undefined, tools: [tool as never] })).toThrow(
      expect.objectContaining({ code: 'invalid_tool_definition', message: expect.stringContaining(start) }),
    );
  });
});
