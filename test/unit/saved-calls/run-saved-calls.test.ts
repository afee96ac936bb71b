import { describe, expect, it } from 'vitest';
import { runSavedCalls, savedCallFromRecord, type LoadedSavedCall, type SentAnswer } from '../../../src/saved-calls/index.js';
import { makeRecord } from '../../helpers/make-record.js';

/**
 * The route as `send` sees it: answers the saved call's order with a status,
 * and a timestamp that changes on every call (as a real route's `at` would).
 * Copies what sendSignedCall gives back: status, headers, body text, time.
 */
function routeSend(options: { status?: string; delayMs?: (body: string) => number } = {}) {
  let clock = 0;
  const sent: string[] = [];
  const send = async (body: string): Promise<SentAnswer> => {
    sent.push(body);
    const order = (JSON.parse(body) as { input: { orderId: string } }).input.orderId;
    await new Promise((resolve) => setTimeout(resolve, options.delayMs?.(order) ?? 0));
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ result: { status: options.status ?? 'shipped', order, at: ++clock } }), durationMs: 1 };
  };
  return { send, sent };
}

function loaded(n: number): LoadedSavedCall {
  const record = makeRecord({ n, response: { status: 200, headers: {}, body: JSON.stringify({ result: { status: 'shipped', order: `A-${n}`, at: 0 } }) } });
  return { file: `median-calls/${n}.json`, saved: savedCallFromRecord(record) };
}

const base = { tools: null, isNewId: true, shouldUpdate: false, shouldBail: false };

describe('runSavedCalls', () => {
  it('the first run sends twice, writes the noise into ignore and passes despite it', async () => {
    const route = routeSend();
    const [result] = await runSavedCalls([loaded(1)], { ...base, send: route.send });
    expect(route.sent).toHaveLength(2);
    expect(result).toMatchObject({ outcome: 'passed', noise: ['result.at'] });
    expect(result!.rewritten?.ignore).toEqual(['result.at']);
    // A fresh call_ id each send, not the saved one (routes key on toolCallId).
    const ids = route.sent.map((b) => (JSON.parse(b) as { toolCallId: string }).toolCallId);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{32}$/);
  });

  it('sends once when ignore is known, and --same-id keeps the saved id', async () => {
    const route = routeSend();
    const call = { ...loaded(2), saved: { ...loaded(2).saved, ignore: ['result.at'] } };
    const [result] = await runSavedCalls([call], { ...base, isNewId: false, send: route.send });
    expect(route.sent.map((b) => (JSON.parse(b) as { toolCallId: string }).toolCallId)).toEqual([call.saved.call.toolCallId]);
    expect(result).toMatchObject({ outcome: 'passed', noise: null, rewritten: null });
  });

  it('--update takes the new answer of a failing call', async () => {
    const route = routeSend({ status: 'lost' });
    const call = { ...loaded(3), saved: { ...loaded(3).saved, ignore: ['result.at'] } };
    const [result] = await runSavedCalls([call], { ...base, shouldUpdate: true, send: route.send });
    expect(result!.outcome).toBe('updated');
    expect(result!.rewritten?.expect.body).toMatchObject({ result: { status: 'lost' } });
  });

  it('with concurrency, keeps the calls’ order in the results; --bail stops starting new ones', async () => {
    const calls = [4, 5, 6, 7].map((n) => ({ ...loaded(n), saved: { ...loaded(n).saved, ignore: ['result.at'] } }));
    // The first call answers last.
    const route = routeSend({ delayMs: (order) => (order === 'A-4' ? 30 : 0) });
    const results = await runSavedCalls(calls, { ...base, concurrency: 4, send: route.send });
    expect(results.map((r) => r.file)).toEqual(calls.map((c) => c.file));
    const failing = routeSend({ status: 'lost' });
    const bailed = await runSavedCalls(calls, { ...base, shouldBail: true, send: failing.send });
    expect(bailed.map((r) => r.outcome)).toEqual(['failed']);
  });
});
