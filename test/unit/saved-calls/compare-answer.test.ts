import { describe, expect, it } from 'vitest';
import { judgeAnswer, VERDICT_KINDS, type ManifestTool, type VerdictKind } from '../../../src/median/index.js';
import { checkAgainstManifest, compareAnswer, findNoise, savedCallFromRecord, withIgnored, type FreshAnswer, type SavedCall } from '../../../src/saved-calls/index.js';
import { makeRecord } from '../../helpers/make-record.js';

/** One answer the route can give for each verdict kind (SPEC §2.3). */
const ANSWERS: Record<VerdictKind, { status: number; body: string }> = {
  answered: { status: 200, body: '{"result":{"status":"shipped"}}' },
  refused: { status: 200, body: '{"result":{"ok":false,"reason":"not_signed_in","detail":"Sign in to see orders."}}' },
  'unknown-outcome': { status: 200, body: '{"result":{"outcome":"unknown","reason":"payment_pending","detail":"Waiting."}}' },
  threw: { status: 200, body: '{"error":{"code":"execution_failed","message":"The card processor is offline."}}' },
  'invalid-input': { status: 400, body: '{"error":{"code":"invalid_input","message":"orderNumber is required."}}' },
  'not-answering': { status: 500, body: '{"error":{"code":"boom","message":"it broke"}}' },
};

function fresh(kind: VerdictKind, override: Partial<{ status: number; body: string }> = {}): FreshAnswer {
  const { status, body } = { ...ANSWERS[kind], ...override };
  return { status, body, durationMs: 3, verdict: judgeAnswer({ status, headers: {}, body, durationMs: 3 }) };
}

function savedFor(kind: VerdictKind, ignore: string[] = []): SavedCall {
  const { status, body } = ANSWERS[kind];
  const record = makeRecord({ response: { status, headers: {}, body }, verdict: judgeAnswer({ status, headers: {}, body, durationMs: 3 }) });
  return { ...savedCallFromRecord(record), ignore };
}

describe('compareAnswer: each verdict kind × same and different', () => {
  const pairs = VERDICT_KINDS.flatMap((was) => VERDICT_KINDS.map((now) => [was, now] as const));

  it.each(pairs)('saved %s, now %s', (was, now) => {
    const { problems } = compareAnswer(savedFor(was), fresh(now));
    if (was === now) {
      expect(problems).toEqual([]);
    } else {
      expect(problems[0]).toMatchObject({ code: 'verdict' });
      expect(problems[0]!.message.startsWith(`was ${was}, now ${now}`)).toBe(true);
    }
  });

  it('says what the agent is told now, in its terms', () => {
    expect(compareAnswer(savedFor('answered'), fresh('invalid-input')).problems[0]!.message).toBe('was answered, now invalid-input: orderNumber is required.');
    expect(compareAnswer(savedFor('answered'), fresh('not-answering')).problems[0]!.message).toBe('was answered, now not-answering: The endpoint answered 500. boom: it broke');
  });

  it('fails the same verdict with another result, with a diff naming the path', () => {
    const { problems, diff } = compareAnswer(savedFor('answered'), fresh('answered', { body: '{"result":{"status":"lost"}}' }));
    expect(problems).toEqual([{ code: 'body', message: 'the answer differs at result.status' }]);
    expect(diff).toContain('-     "status": "shipped"');
    expect(diff).toContain('+     "status": "lost"');
  });

  it('passes a differing field that is ignored, and key order never matters', () => {
    const saved = { ...savedFor('answered'), expect: { ...savedFor('answered').expect, body: { result: { status: 'shipped', at: '1' } } } };
    expect(compareAnswer({ ...saved, ignore: ['result.at'] }, fresh('answered', { body: '{"result":{"at":"2","status":"shipped"}}' })).problems).toEqual([]);
    expect(compareAnswer(saved, fresh('answered', { body: '{"result":{"at":"1","status":"shipped"}}' })).problems).toEqual([]);
  });

  it('fails a status change within the same verdict', () => {
    const { problems } = compareAnswer(savedFor('not-answering'), fresh('not-answering', { status: 502 }));
    expect(problems.map((p) => p.code)).toEqual(['status']);
  });

  it('fails on a docs limit the saved answer was within', () => {
    const long = JSON.stringify({ result: { text: 'x'.repeat(4_100) } });
    const { problems } = compareAnswer({ ...savedFor('answered'), ignore: ['result'] }, fresh('answered', { body: long }));
    expect(problems).toEqual([expect.objectContaining({ code: 'limit', message: expect.stringContaining('[result_truncated]') })]);
  });
});

describe('findNoise', () => {
  it.each([
    ['a changed field', { a: 1, b: 'x' }, { a: 2, b: 'x' }, ['a']],
    ['the same field in every item', { items: [{ id: 1, n: 'a' }, { id: 2, n: 'b' }] }, { items: [{ id: 3, n: 'a' }, { id: 4, n: 'b' }] }, ['items.*.id']],
    ['a field only one side has', { result: { at: 't' } }, { result: {} }, ['result.at']],
    ['an array of another length', { list: [1] }, { list: [1, 2] }, ['list']],
    ['nothing', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, []],
  ])('finds %s', (_name, a, b, paths) => {
    expect(findNoise(a, b)).toEqual(paths);
  });

  it('gives paths withIgnored hides', () => {
    const a = { result: { items: [{ id: 1 }, { id: 2 }] } };
    const b = { result: { items: [{ id: 7 }, { id: 8 }] } };
    expect(withIgnored(a, findNoise(a, b))).toEqual(withIgnored(b, findNoise(a, b)));
  });
});

describe('checkAgainstManifest', () => {
  const tool = (over: Partial<ManifestTool> = {}): ManifestTool => ({
    name: 'orderStatus',
    description: 'x',
    risk: 'low',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
    ...over,
  });
  const saved = savedCallFromRecord(makeRecord());

  it.each([
    ['the same tool', [tool()], []],
    ['a tool gone', [tool({ name: 'other' })], ['tool-gone']],
    ['an input that no longer fits', [tool({ inputSchema: { type: 'object', properties: { orderNumber: { type: 'string' } }, required: ['orderNumber'], additionalProperties: false } })], ['input-invalid']],
    ['a risk now high', [tool({ risk: 'high' })], ['risk-changed']],
  ])('%s', (_name, tools, codes) => {
    expect(checkAgainstManifest(saved, tools).map((p) => p.code)).toEqual(codes);
  });
});
