import { randomBytes } from 'node:crypto';
import { deriveToolSecret, signBody, SIGNATURE_HEADER } from '../../src/median/index.js';

export interface SignedToolCall {
  toolCallId: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * A tool call as Median sends it (SPEC §1.2), signed with the secret derived
 * from `medianKey`: an `orderStatus` lookup unless told otherwise.
 */
export function signedToolCall(medianKey: string, call: { tool?: string; input?: unknown } = {}): SignedToolCall {
  const toolCallId = `call_${randomBytes(16).toString('hex')}`;
  const body = JSON.stringify({
    tool: call.tool ?? 'orderStatus',
    toolCallId,
    input: call.input ?? { orderNumber: 'A1001' },
    context: { conversationId: `conv_${toolCallId.slice(5, 13)}`, risk: 'low', visitor: { verified: false } },
  });
  return {
    toolCallId,
    body,
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(deriveToolSecret(medianKey), body) },
  };
}
