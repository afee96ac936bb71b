import { setTimeout as delay } from 'node:timers/promises';
import { p } from './field-builder.js';
import { defineTool, type ToolDefinition } from './tool-definition.js';

/**
 * A shop's tools, one for every verdict the agent can reach:
 *
 * | tool           | risk     | what it shows                                          |
 * | -------------- | -------- | ------------------------------------------------------ |
 * | orderStatus    | low      | answered, with a `medianNavigateTo` button              |
 * | lookupCustomer | low      | refused (`ok: false`) unless the visitor is verified    |
 * | cancelOrder    | reviewed | answered after review; every field kind                 |
 * | refundOrder    | high     | unknown outcome above 500 (`outcome: "unknown"`)        |
 * | chargeCard     | medium   | threw (`execution_failed`)                              |
 * | slowReport     | low      | not answering when `seconds` passes Median's 10 s limit |
 * | exportHistory  | low      | cut at 4,000 characters; `size: "huge"` is over 100 KB  |
 */
export interface DemoToolsOptions {
  /** How long one of slowReport's "seconds" lasts in ms; tests make it short. Default 1,000. */
  msPerSecond?: number;
}

const ORDER_STATUSES = ['processing', 'shipped', 'out_for_delivery', 'delivered'] as const;

/** The same order number always has the same status. */
function statusOf(orderNumber: string): (typeof ORDER_STATUSES)[number] {
  let sum = 0;
  for (const char of orderNumber) sum += char.codePointAt(0) ?? 0;
  return ORDER_STATUSES[sum % ORDER_STATUSES.length] ?? 'processing';
}

/** `count` history entries of about 100 characters each. */
function historyEntries(count: number): Array<{ at: string; event: string; detail: string }> {
  const start = Date.UTC(2025, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(start + i * 3_600_000).toISOString(),
    event: i % 3 === 0 ? 'order.placed' : i % 3 === 1 ? 'order.shipped' : 'order.delivered',
    detail: `Order A${String(1000 + i)} for the customer, two items`,
  }));
}

export function createDemoTools(options: DemoToolsOptions = {}): ToolDefinition[] {
  const msPerSecond = options.msPerSecond ?? 1000;

  const orderStatus = defineTool({
    name: 'orderStatus',
    description: 'Look up where an order is and when it arrives.',
    risk: 'low',
    input: { orderNumber: p.string().describe('The order number, like A1001.') },
    execute: ({ orderNumber }) => {
      const status = statusOf(orderNumber);
      return {
        orderNumber,
        status,
        eta: status === 'delivered' ? 'delivered' : status === 'processing' ? 'in 4 days' : 'in 2 days',
        medianNavigateTo: `/orders/${encodeURIComponent(orderNumber)}`,
      };
    },
  });

  const lookupCustomer = defineTool({
    name: 'lookupCustomer',
    description: "Show the signed-in customer's profile and recent orders.",
    risk: 'low',
    input: {},
    execute: (_input, { visitor }) => {
      if (!visitor.verified) return { ok: false, reason: 'not_signed_in', detail: 'Sign in to see orders.' };
      return {
        customerId: visitor.externalId ?? null,
        name: visitor.name ?? null,
        email: visitor.email ?? null,
        orders: ['A1001', 'A1002'],
      };
    },
  });

  const cancelOrder = defineTool({
    name: 'cancelOrder',
    description: 'Cancel an order that has not shipped yet.',
    risk: 'reviewed',
    input: {
      orderNumber: p.string().describe('The order to cancel.'),
      reason: p.enum(['changed_mind', 'too_slow', 'other']).optional(),
      notifyCustomer: p.boolean().optional().describe('Send the cancellation email; default true.'),
    },
    execute: ({ orderNumber, reason, notifyCustomer }, { approvedBy }) => ({
      orderNumber,
      cancelled: true,
      reason: reason ?? 'other',
      notified: notifyCustomer ?? true,
      approvedBy: approvedBy ?? null,
    }),
  });

  const refundOrder = defineTool({
    name: 'refundOrder',
    description: 'Refund an order, in full or in part. Needs a teammate to approve.',
    risk: 'high',
    input: {
      orderNumber: p.string(),
      amount: p.number().describe('The amount to refund, in dollars.'),
    },
    execute: ({ orderNumber, amount }) => {
      // Large refunds wait on the payment provider: the outcome is not known yet.
      if (amount > 500) {
        return {
          outcome: 'unknown',
          reason: 'payment_pending',
          detail: `The refund of $${amount} for ${orderNumber} is waiting on the payment provider.`,
        };
      }
      return { orderNumber, refunded: amount, status: 'refunded' };
    },
  });

  const chargeCard = defineTool({
    name: 'chargeCard',
    description: 'Charge the card on file for an order.',
    risk: 'medium',
    input: { orderNumber: p.string(), amount: p.number() },
    execute: () => {
      throw new Error('The card processor is offline. Nothing was charged.');
    },
  });

  const slowReport = defineTool({
    name: 'slowReport',
    description: 'Build the sales report. Takes a few seconds.',
    risk: 'low',
    input: { seconds: p.number().optional().describe('How long the report takes; default 2.') },
    execute: async ({ seconds = 2 }, { signal }) => {
      await delay(Math.max(0, seconds) * msPerSecond, undefined, { signal });
      return { report: 'ready', tookSeconds: seconds };
    },
  });

  const exportHistory = defineTool({
    name: 'exportHistory',
    description: "Export the shop's order history.",
    risk: 'low',
    input: { size: p.enum(['normal', 'huge']).optional().describe('"huge" exports everything (over 100 KB).') },
    execute: ({ size = 'normal' }) => {
      const entries = historyEntries(size === 'huge' ? 1500 : 60);
      return { size, count: entries.length, entries };
    },
  });

  return [orderStatus, lookupCustomer, cancelOrder, refundOrder, chargeCard, slowReport, exportHistory];
}
