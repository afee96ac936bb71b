import { describe, expect, it } from 'vitest';
import { checkToolUse, fullTurns, type Endpoint, type ManifestTool, type ToolUseFacts } from '../../../src/median/index.js';

const tool = (name: string, description = `Look up ${name} for the signed-in customer.`): ManifestTool => ({
  name,
  description,
  risk: 'low',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
});
const endpoint = (tools: Array<[string, boolean]>, over: Partial<Endpoint> = {}): Endpoint => ({
  id: 'tep_1',
  url: 'https://x.loca.lt/api/median',
  status: 'synced',
  error: null,
  tools: tools.map(([name, enabled]) => ({ name, enabled })),
  createdAt: '2026-01-01T00:00:00.000Z',
  syncedAt: '2026-01-01T00:00:01.000Z',
  ...over,
});
const facts = (over: Partial<ToolUseFacts> = {}): ToolUseFacts => ({
  tool: 'orderStatus',
  endpoints: [endpoint([['orderStatus', true], ['refundOrder', true]])],
  manifest: [tool('orderStatus'), tool('refundOrder')],
  calls: [],
  ...over,
});
const statusOf = (f: ToolUseFacts) => Object.fromEntries(checkToolUse(f).map((c) => [c.check, c.status]));

describe('the docs’ five checks for a tool the agent does not use', () => {
  it('all pass for a synced, switched-on, described tool', () => {
    expect(statusOf(facts())).toEqual({ synced: 'ok', 'switched-on': 'ok', 'conversation-after-deploy': 'ok', description: 'ok', 'calls-left': 'ok' });
  });

  it.each<[string, Partial<ToolUseFacts>, string, string]>([
    ['no endpoint lists it, the route serves it', { endpoints: [endpoint([['refundOrder', true]])] }, 'synced', 'fail'],
    ['its endpoint failed its last sync', { endpoints: [endpoint([['orderStatus', true]], { status: 'failed', error: 'The endpoint answered 500.' })] }, 'synced', 'warn'],
    ['its switch is off', { endpoints: [endpoint([['orderStatus', false], ['refundOrder', true]])] }, 'switched-on', 'fail'],
    ['the route has a tool Median did not sync', { manifest: [tool('orderStatus'), tool('refundOrder'), tool('trackParcel')] }, 'conversation-after-deploy', 'fail'],
    ['an empty description', { manifest: [tool('orderStatus', ''), tool('refundOrder')] }, 'description', 'fail'],
    ['a very short description', { manifest: [tool('orderStatus', 'Orders.'), tool('refundOrder')] }, 'description', 'warn'],
    ['the same description as another tool', { manifest: [tool('orderStatus', 'Does things with orders here.'), tool('refundOrder', 'does things with orders here.')] }, 'description', 'warn'],
  ])('%s', (_name, over, check, status) => {
    expect(statusOf(facts(over))[check]).toBe(status);
  });

  it('a turn that used its 3 calls on other tools left none for this one', () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const calls = [
      { tool: 'refundOrder', conversationId: 'conv_a', receivedAt: at(0) },
      { tool: 'refundOrder', conversationId: 'conv_a', receivedAt: at(5) },
      { tool: 'lookupCustomer', conversationId: 'conv_a', receivedAt: at(9) },
      { tool: 'refundOrder', conversationId: 'conv_b', receivedAt: at(0) },
      { tool: 'refundOrder', conversationId: 'conv_b', receivedAt: at(50) },
      { tool: 'refundOrder', conversationId: 'conv_b', receivedAt: at(100) },
    ];
    expect(fullTurns(calls)).toEqual([{ conversationId: 'conv_a', tools: ['refundOrder', 'refundOrder', 'lookupCustomer'] }]);
    const check = checkToolUse(facts({ calls })).find((c) => c.check === 'calls-left');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check?.message).toContain('the agent sends 3 calls per turn');
  });
});
