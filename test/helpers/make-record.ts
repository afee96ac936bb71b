import type { CallRecord } from '../../src/median/index.js';

export const KEY = 'median_key_' + 'Zq7Xw2Lp'.repeat(4) + 'abcd';
export const MASKED_KEY = 'median_key_****abcd';

let counter = 0;

/** A plausible recorded tool call; every field can be overridden. */
export function makeRecord(overrides: Partial<CallRecord> & { n?: number } = {}): CallRecord {
  const { n = (counter += 1), ...rest } = overrides;
  const toolCallId = rest.toolCallId ?? `call_${n.toString(16).padStart(32, '0')}`;
  const tool = rest.tool === undefined ? 'orderStatus' : rest.tool;
  const body = JSON.stringify({
    tool,
    toolCallId,
    input: { orderId: `A-${n}` },
    context: {
      conversationId: 'conv_1',
      risk: 'low',
      visitor: { verified: false, email: 'ada@example.com', name: 'Ada Lovelace' },
    },
  });
  return {
    id: `rec_${(1_750_000_000_000 + n).toString(16).padStart(12, '0')}${n.toString(16).padStart(12, '0')}`,
    toolCallId,
    tool,
    conversationId: 'conv_1',
    risk: 'low',
    kind: 'tool-call',
    receivedAt: new Date(1_750_000_000_000 + n).toISOString(),
    durationMs: 12,
    request: {
      method: 'POST',
      path: '/api/median',
      headers: { 'content-type': 'application/json', 'median-signature': `t=1750000000000,v1=${'ab'.repeat(32)}` },
      body,
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: `{"result":{"status":"shipped","order":"A-${n}"}}`,
    },
    signature: 'valid',
    verdict: { kind: 'answered', agentSees: `{"status":"shipped","order":"A-${n}"}`, warnings: [] },
    replayOf: null,
    ...rest,
  };
}
