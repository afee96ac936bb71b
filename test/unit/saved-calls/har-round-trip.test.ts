import { describe, expect, it } from 'vitest';
import { toHar } from '../../../src/recorder/index.js';
import { savedCallAsRecord, savedCallFromRecord, toolCallsFromHar } from '../../../src/saved-calls/index.js';
import { makeRecord } from '../../helpers/make-record.js';

describe('saved calls ⇄ HAR', () => {
  it('a saved call exported as HAR and imported again is the same call and expectation', () => {
    const saved = savedCallFromRecord(makeRecord({ tool: 'orderStatus' }));
    const har = JSON.parse(JSON.stringify(toHar([savedCallAsRecord(saved)], { creator: { name: 'median-dev', version: '0' }, baseUrl: 'http://localhost:3000' })));
    const { records, skipped } = toolCallsFromHar(har, 'x.har');
    expect(skipped).toBe(0);
    const back = savedCallFromRecord(records[0]!);
    expect(back.call).toEqual(saved.call);
    expect(back.expect).toEqual(saved.expect);
    expect(back.name).toBe(saved.name);
  });

  it('reads the tool calls of a recordings HAR and counts the rest', () => {
    const har = toHar([makeRecord(), makeRecord({ kind: 'manifest', request: { method: 'GET', path: '/api/median', headers: {}, body: '' } }), makeRecord({ response: null })], {
      creator: { name: 'median-dev', version: '0' },
    });
    const { records, skipped } = toolCallsFromHar(har, 'x.har');
    expect(skipped).toBe(1);
    expect(records.map((r) => [r.verdict.kind, r.response?.status ?? null])).toEqual([
      ['answered', 200],
      ['not-answering', null],
    ]);
  });

  it('refuses a file that is no HAR', () => {
    expect(() => toolCallsFromHar({ entries: [] }, 'x.har')).toThrow(expect.objectContaining({ code: 'invalid_har' }));
  });
});
