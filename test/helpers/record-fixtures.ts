import type { CallRecord, Risk } from '../../src/median/index.js';
import type { DaemonEvent, DaemonSnapshot } from '../../src/events/index.js';

let counter = 0;

/** A recorded tool call; every field can be overridden. */
export function makeRecord(overrides: Partial<CallRecord> & { input?: Record<string, unknown> } = {}): CallRecord {
  counter += 1;
  const n = counter;
  const { input = { orderNumber: `A-${n}` }, ...rest } = overrides;
  const tool = rest.tool === undefined ? 'lookup_order' : rest.tool;
  const toolCallId = rest.toolCallId ?? `call_${n.toString(16).padStart(32, '0')}`;
  const risk: Risk | null = rest.risk === undefined ? 'low' : rest.risk;
  const body = JSON.stringify({
    tool,
    toolCallId,
    input,
    context: { conversationId: `conv_${n}`, risk, visitor: { verified: true, email: 'ada@example.com' } },
  });
  return {
    id: `rec_${n.toString(16).padStart(24, '0')}`,
    toolCallId,
    tool,
    conversationId: `conv_${n}`,
    risk,
    kind: 'tool-call',
    receivedAt: new Date(Date.UTC(2025, 0, 2, 3, 4, 5) + n * 1000).toISOString(),
    durationMs: 12,
    request: {
      method: 'POST',
      path: '/api/median',
      headers: { 'content-type': 'application/json', 'median-signature': `t=${Date.UTC(2025, 0, 2, 3, 4, 5) + n * 1000 - 40},v1=${'ab'.repeat(32)}` },
      body,
    },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ result: { status: 'shipped' } }) },
    signature: 'valid',
    verdict: { kind: 'answered', agentSees: '{"status":"shipped"}', warnings: [] },
    replayOf: null,
    ...rest,
  };
}

export function makeSnapshot(records: CallRecord[] = [], overrides: Partial<DaemonSnapshot> = {}): DaemonSnapshot {
  return {
    version: '0.1.0',
    proxyUrl: 'http://127.0.0.1:4141',
    tunnel: { state: 'open', url: 'https://calm-otter.loca.lt' },
    toolsUrl: 'https://calm-otter.loca.lt/api/median',
    endpoint: { id: 'ep_1', url: 'https://calm-otter.loca.lt/api/median', status: 'synced', error: null },
    child: { state: 'running', pid: 4242, command: 'npm run dev' },
    keyFingerprint: '…abcd',
    isDemo: false,
    callCount: records.length,
    records,
    ...overrides,
  };
}

export function callEvent(record: CallRecord, options: { withRecord?: boolean } = {}): DaemonEvent {
  return {
    event: 'call',
    at: record.receivedAt,
    id: record.id,
    toolCallId: record.toolCallId,
    tool: record.tool,
    status: record.response?.status ?? null,
    signature: record.signature,
    verdict: record.verdict.kind,
    durationMs: record.durationMs,
    replayOf: record.replayOf,
    ...(options.withRecord === false ? {} : { record }),
  };
}
