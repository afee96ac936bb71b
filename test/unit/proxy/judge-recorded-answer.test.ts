import { describe, expect, it } from 'vitest';
import { MEDIAN_CALL_LIMITS, SYNC_MESSAGES, type AnswerFacts, type RequestKind } from '../../../src/median/index.js';
import { answerDeadlineMs, judgeRecordedAnswer } from '../../../src/proxy/judge-recorded-answer.js';

const ENDPOINT = 'http://127.0.0.1:3000/api/median';
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const MANIFEST = {
  version: 1,
  tools: [
    {
      name: 'orderStatus',
      description: 'Look up an order.',
      risk: 'low',
      inputSchema: { type: 'object', properties: { orderNumber: { type: 'string' } }, required: ['orderNumber'], additionalProperties: false },
    },
  ],
};

function facts(status: number | null, body: Buffer | null, extra: Partial<AnswerFacts> = {}): AnswerFacts {
  return { status, headers: { 'content-type': 'application/json' }, body, durationMs: 5, ...extra };
}

describe('answerDeadlineMs', () => {
  it.each([
    ['tool-call', 10_000],
    ['diagnostics', 8_000],
    ['manifest', 10_000],
    ['connect', undefined],
    ['other', undefined],
  ] as Array<[RequestKind, number | undefined]>)('%s → %s', (kind, deadline) => {
    expect(answerDeadlineMs(kind, MEDIAN_CALL_LIMITS)).toBe(deadline);
  });

  it('never gives diagnostics more than a shortened call limit', () => {
    expect(answerDeadlineMs('diagnostics', { ...MEDIAN_CALL_LIMITS, timeoutMs: 200 })).toBe(200);
  });
});

describe('judgeRecordedAnswer', () => {
  it.each([
    { name: 'a tool call result', kind: 'tool-call', facts: facts(200, json({ result: { a: 1 } })), verdict: 'answered' },
    { name: 'a tool call 500', kind: 'tool-call', facts: facts(500, json({ error: { code: 'x', message: 'y' } })), verdict: 'not-answering' },
    { name: 'diagnostics_unsupported', kind: 'diagnostics', facts: facts(200, json({ error: { code: 'diagnostics_unsupported', message: 'none' } })), verdict: 'answered' },
    { name: 'diagnostics after 9 s', kind: 'diagnostics', facts: facts(200, json({ result: 1 }), { durationMs: 9_000 }), verdict: 'not-answering' },
    { name: 'a valid manifest', kind: 'manifest', facts: facts(200, json(MANIFEST)), verdict: 'answered' },
    { name: 'a manifest that breaks a sync rule', kind: 'manifest', facts: facts(200, json({ version: 2, tools: [] })), verdict: 'not-answering' },
    { name: 'a manifest read refused 401', kind: 'manifest', facts: facts(401, json({ error: { code: 'invalid_signature', message: 'no' } })), verdict: 'not-answering' },
    { name: 'a manifest read that never came', kind: 'manifest', facts: facts(null, null, { failure: 'connection' }), verdict: 'not-answering' },
    { name: 'a connect that worked', kind: 'connect', facts: facts(200, json({ connected: true, endpoint: ENDPOINT, tools: 1, message: 'Connected. Median is syncing 1 tool.' })), verdict: 'answered' },
    { name: 'a connect refused', kind: 'connect', facts: facts(401, json({ error: { code: 'unauthorized', message: 'Send the key.' } })), verdict: 'not-answering' },
    { name: 'another page', kind: 'other', facts: facts(200, Buffer.from('<html>')), verdict: 'answered' },
    { name: 'another page redirecting', kind: 'other', facts: facts(302, null), verdict: 'answered' },
    { name: 'another page missing', kind: 'other', facts: facts(404, null), verdict: 'not-answering' },
    { name: 'anything unanswered', kind: 'other', facts: facts(null, null, { failure: 'connection' }), verdict: 'not-answering' },
  ] as Array<{ name: string; kind: RequestKind; facts: AnswerFacts; verdict: string }>)('$name ($kind) → $verdict', ({ kind, facts: given, verdict }) => {
    expect(judgeRecordedAnswer(kind, given, MEDIAN_CALL_LIMITS, ENDPOINT).kind).toBe(verdict);
  });

  it('says what the manifest serves, and why a sync would fail', () => {
    expect(judgeRecordedAnswer('manifest', facts(200, json(MANIFEST)), MEDIAN_CALL_LIMITS, ENDPOINT).agentSees).toBe('1 tools: orderStatus');
    expect(judgeRecordedAnswer('manifest', facts(401, null), MEDIAN_CALL_LIMITS, ENDPOINT).callError).toBe(SYNC_MESSAGES.refusedSignature);
  });

  it("shows a connect's message and a refused connect's error", () => {
    const ok = facts(200, json({ connected: true, endpoint: ENDPOINT, tools: 2, message: 'Connected. Median is syncing 2 tools.' }));
    expect(judgeRecordedAnswer('connect', ok, MEDIAN_CALL_LIMITS, ENDPOINT).agentSees).toBe('Connected. Median is syncing 2 tools.');
    const refused = facts(401, json({ error: { code: 'unauthorized', message: 'Send the key.' } }));
    expect(judgeRecordedAnswer('connect', refused, MEDIAN_CALL_LIMITS, ENDPOINT).callError).toBe('The endpoint answered 401. unauthorized: Send the key.');
  });
});
