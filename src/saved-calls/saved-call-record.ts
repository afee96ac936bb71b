import type { CallRecord } from '../median/call-record.js';
import type { SavedCall } from './saved-call.js';

/**
 * A saved call in the shape of a record, so the shared pieces that take
 * records take it too: the filter language (`test --filter`) and the HAR
 * writer (`export --har --saved`). Its id is the saved call's name; its
 * answer is the saved expectation.
 */
export function savedCallAsRecord(saved: SavedCall, options: { path?: string } = {}): CallRecord {
  const { call, expect } = saved;
  const body = expect.body !== undefined ? JSON.stringify(expect.body) : (expect.bodyText ?? '');
  return {
    id: saved.name,
    toolCallId: call.toolCallId,
    tool: call.tool,
    conversationId: call.context.conversationId,
    risk: call.context.risk,
    kind: 'tool-call',
    receivedAt: saved.savedFrom.receivedAt ?? new Date(0).toISOString(),
    durationMs: null,
    request: {
      method: 'POST',
      path: options.path ?? '/api/median',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: call.tool, toolCallId: call.toolCallId, input: call.input, context: call.context }),
    },
    response: expect.status === null ? null : { status: expect.status, headers: { ...expect.headers }, body, ...(expect.isBodyCut ? { truncated: true } : {}) },
    signature: 'unchecked',
    verdict: { kind: expect.verdict, agentSees: expect.agentSees, warnings: expect.warnings.map((code) => ({ code, message: code })) },
    replayOf: null,
  };
}
