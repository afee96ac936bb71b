import { describe, expect, it } from 'vitest';
import { signedPost, toolCall, useToolRoute } from './route-client.js';

// The docs' invalid_input messages, word for word (tool-errors.txt, "Route responses").
describe('example route: invalid_input', () => {
  it.each([
    ['orderStatus', {}, 'orderNumber is required.'],
    ['orderStatus', { orderNumber: null }, 'orderNumber is required.'],
    ['orderStatus', { orderNumber: 42 }, 'orderNumber must be a string.'],
    ['refundOrder', { orderNumber: 'A1', amount: '12' }, 'amount must be a number.'],
    ['refundOrder', { orderNumber: 'A1' }, 'amount is required.'],
    ['cancelOrder', { orderNumber: 'A1', notifyCustomer: 'true' }, 'notifyCustomer must be a boolean.'],
    ['cancelOrder', { orderNumber: 'A1', notifyCustomer: 1 }, 'notifyCustomer must be a boolean.'],
    ['cancelOrder', { orderNumber: 'A1', reason: 'bored' }, 'reason must be one of: changed_mind, too_slow, other.'],
    ['cancelOrder', { orderNumber: 'A1', reason: 1 }, 'reason must be one of: changed_mind, too_slow, other.'],
    ['orderStatus', { orderNumber: 'A1', coupon: 'X' }, 'Unexpected field "coupon". This tool\'s input allows: orderNumber.'],
    [
      'cancelOrder',
      { orderNumber: 'A1', refund: true },
      'Unexpected field "refund". This tool\'s input allows: orderNumber, reason, notifyCustomer.',
    ],
    // The first failing field is named: declared fields in order, then unexpected ones.
    ['cancelOrder', { extra: 1, reason: 'bored', orderNumber: 5 }, 'orderNumber must be a string.'],
    ['cancelOrder', { extra: 1, orderNumber: 'A1', reason: 'bored' }, 'reason must be one of: changed_mind, too_slow, other.'],
  ])('%s %j → %s', async (tool, input, message) => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall(tool, input));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { code: 'invalid_input', message } });
  });

  it('names the unexpected field on a tool without fields', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(route.url, toolCall('lookupCustomer', { email: 'a@b.c' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_input');
    expect(answer.body.error.message).toMatch(/^Unexpected field "email"\. /);
  });

  it('counts null as absent: optional fields take their defaults, extra nulls are ignored', async () => {
    const route = await useToolRoute();
    const answer = await signedPost(
      route.url,
      toolCall('cancelOrder', { orderNumber: 'A1', reason: null, notifyCustomer: null, coupon: null }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result).toMatchObject({ orderNumber: 'A1', reason: 'other', notified: true });
  });

  it('does not coerce: a numeric string is not a number, "false" is not a boolean', async () => {
    const route = await useToolRoute();
    expect((await signedPost(route.url, toolCall('slowReport', { seconds: '0' }))).body.error.code).toBe('invalid_input');
    const ok = await signedPost(route.url, toolCall('cancelOrder', { orderNumber: 'A1', notifyCustomer: false }));
    expect(ok.body.result.notified).toBe(false);
  });
});
