import { describe, expect, it } from 'vitest';
import { describeDiagnosticsAnswer, type AnswerFacts } from '../../../src/median/index.js';

const answer = (status: number, body: unknown, durationMs = 13.578524999989895): AnswerFacts => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), durationMs });

describe('describeDiagnosticsAnswer', () => {
  it.each<[string, AnswerFacts, string]>([
    ['a result', answer(200, { result: { uptime: 12 } }), 'the route answered in 14 ms; Median keeps all 13 characters of it.'],
    ['a result over 2,000 characters', answer(200, { result: 'x'.repeat(2_500) }), 'the route answered in 14 ms; Median keeps the first 2,000 characters of it.'],
    ['nothing collected', answer(200, { error: { code: 'diagnostics_unsupported', message: 'none' } }), 'the route collects none (diagnostics_unsupported, not a fault); answered in 14 ms.'],
    ['a 500', answer(500, { error: { code: 'missing_secret', message: 'no key' } }), 'Median would get nothing usable: The endpoint answered 500. missing_secret: no key (14 ms).'],
  ])('%s', (_name, facts, said) => {
    expect(describeDiagnosticsAnswer(facts)).toBe(said);
  });

  it('never prints raw JSON or an unrounded duration', () => {
    expect(describeDiagnosticsAnswer(answer(200, { result: 1 }))).not.toMatch(/[{}]|\.\d{3}/);
  });
});
