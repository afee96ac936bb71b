/**
 * Call records like the recording proxy writes for the bench traffic (the
 * shape and sizes of a real one, ~1.5 KB of JSON), each with its own ids.
 */
import { SIGNATURE_HEADER, type CallRecord } from '../src/median/index.js';
import { BENCH_ROUTE, callIds, toolCallBody } from './signed-calls.js';

const ANSWER = JSON.stringify({ result: { ok: true, orderId: 'ord_100042', status: 'shipped', carrier: 'DHL', eta: '2025-06-03' } });
const AGENT_SEES = JSON.stringify({ ok: true, orderId: 'ord_100042', status: 'shipped', carrier: 'DHL', eta: '2025-06-03' });

export function sampleCallRecord(runTag: string, index: number, now: number = Date.now()): CallRecord {
  const body = toolCallBody(runTag, index).toString('utf8');
  const { toolCallId, conversationId } = callIds(runTag, index);
  return {
    // The shape of newRecordId() (rec_ + 12 hex of time + 12 hex), made cheaply: the proxy makes ids, not the recorder.
    id: `rec_${now.toString(16).padStart(12, '0')}${index.toString(16).padStart(12, '0')}`,
    toolCallId,
    tool: 'lookup_order',
    conversationId,
    risk: 'low',
    kind: 'tool-call',
    receivedAt: new Date(now).toISOString(),
    durationMs: 2,
    request: {
      method: 'POST',
      path: BENCH_ROUTE,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Median/1.0 (median-dev bench)',
        [SIGNATURE_HEADER]: `t=${now},v1=${'d7b287e42ebb977bee8dd7f856f857657586c17a9e2eb1b4684c1c365985efd4'}`,
        host: '127.0.0.1:4141',
        connection: 'keep-alive',
      },
      body,
      size: Buffer.byteLength(body),
    },
    response: {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'content-length': String(ANSWER.length),
        date: new Date(now).toUTCString(),
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
      },
      body: ANSWER,
      size: ANSWER.length,
    },
    signature: 'valid',
    verdict: { kind: 'answered', agentSees: AGENT_SEES, warnings: [] },
    replayOf: null,
    error: null,
    lateAnswer: false,
  };
}
