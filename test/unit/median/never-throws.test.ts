import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkManifest,
  classifyRequest,
  judgeAnswer,
  judgeSyncAnswer,
  VERDICT_KINDS,
  type AnswerFacts,
  type SyncFetchOutcome,
} from '../../../src/median/index.js';

const bytes = fc.uint8Array({ maxLength: 300 });
const jsonText = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
/** Bodies that are JSON-ish: shapes of results, refusals and errors with junk inside. */
const envelopeText = fc
  .record({
    result: fc.oneof(fc.anything(), fc.record({ ok: fc.anything(), outcome: fc.anything(), reason: fc.anything(), detail: fc.anything(), medianNavigateTo: fc.anything(), medianHighlight: fc.anything() })),
    error: fc.oneof(fc.anything(), fc.record({ code: fc.anything(), message: fc.anything() })),
  }, { requiredKeys: [] })
  .map((v) => {
    try {
      return JSON.stringify(v) ?? '';
    } catch {
      // fc.anything() may hold BigInts; such a value is simply not a body.
      return '{}';
    }
  });
const body = fc.oneof(bytes, fc.string({ unit: 'binary' }), jsonText, envelopeText, fc.constant(null));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Infinity, -Infinity, Number.NaN));
const headers = fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()), fc.constant(undefined)));

const facts = fc.record(
  {
    status: fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 599 }), number),
    headers,
    body,
    bodySize: number,
    durationMs: number,
    failure: fc.constantFrom('timeout', 'connection', 'too-large', undefined),
  },
  { requiredKeys: ['status', 'headers', 'body', 'durationMs'] },
) as fc.Arbitrary<AnswerFacts>;

const deep = '['.repeat(40_000) + ']'.repeat(40_000);

describe('the pure rules never throw', () => {
  it('judgeAnswer', () => {
    fc.assert(
      fc.property(fc.oneof(facts, fc.anything() as fc.Arbitrary<AnswerFacts>), (input) => {
        const verdict = judgeAnswer(input);
        expect(VERDICT_KINDS).toContain(verdict.kind);
        expect(typeof verdict.agentSees).toBe('string');
      }),
      { numRuns: 600 },
    );
    expect(judgeAnswer({ status: 200, headers: {}, body: `{"result":${deep}}`, durationMs: 1 }).kind).toBeTypeOf('string');
  });

  it('checkManifest', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 5 }), (input) => {
        expect(Array.isArray(checkManifest(input))).toBe(true);
      }),
      { numRuns: 600 },
    );
    expect(checkManifest(JSON.parse(`{"version":1,"tools":[{"inputSchema":{"type":"object","properties":{},"additionalProperties":false,"x":${deep}}}]}`))).not.toEqual([]);
  });

  it('judgeSyncAnswer', () => {
    const outcome = fc.oneof(
      fc.constant({ kind: 'no-answer' } as SyncFetchOutcome),
      fc.record({
        kind: fc.constant('answer' as const),
        status: fc.oneof(fc.integer({ min: 100, max: 599 }), number),
        headers,
        body: fc.oneof(bytes, jsonText.map((t) => new TextEncoder().encode(t)), envelopeText.map((t) => new TextEncoder().encode(t))),
        bodyTooLarge: fc.boolean(),
      }) as fc.Arbitrary<SyncFetchOutcome>,
      fc.anything() as fc.Arbitrary<SyncFetchOutcome>,
    );
    fc.assert(
      fc.property(outcome, fc.string(), (input, url) => {
        const judged = judgeSyncAnswer(input, url);
        expect(typeof judged.ok).toBe('boolean');
      }),
      { numRuns: 600 },
    );
  });

  it('classifyRequest', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'get'), fc.string()), headers, fc.oneof(bytes, fc.string({ unit: 'binary' }), jsonText, envelopeText), (method, h, raw) => {
        expect(['tool-call', 'diagnostics', 'manifest', 'connect', 'other']).toContain(classifyRequest(method, h, raw).kind);
      }),
      { numRuns: 600 },
    );
    expect(classifyRequest('POST', {}, deep).problem?.code).toBe('invalid_body');
  });
});
