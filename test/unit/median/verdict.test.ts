import { describe, expect, it } from 'vitest';
import {
  judgeAnswer,
  MEDIAN_CALL_LIMITS,
  MEDIAN_DIAGNOSTICS_LIMITS,
  type AnswerFacts,
  type VerdictKind,
} from '../../../src/median/index.js';

const NOT_ANSWERING = 'The tool is not answering.';

function facts(status: number | null, body: unknown = null, extra: Partial<AnswerFacts> = {}): AnswerFacts {
  return {
    status,
    headers: {},
    body: body === null ? null : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    durationMs: 12,
    ...extra,
  };
}

/** A `{"result":"…"}` body of exactly `bytes` bytes. */
function resultBodyOfBytes(bytes: number): string {
  return `{"result":"${'x'.repeat(bytes - '{"result":""}'.length)}"}`;
}

/** A string result whose JSON text (with quotes) is exactly `chars` long. */
const stringResultOfChars = (chars: number): string => 'x'.repeat(chars - 2);

describe('judgeAnswer: kinds', () => {
  it.each<[string, AnswerFacts, VerdictKind, string, string | undefined]>([
    ['a result', facts(200, { result: { status: 'shipped' } }), 'answered', '{"status":"shipped"}', undefined],
    ['a string result', facts(200, { result: 'done' }), 'answered', '"done"', undefined],
    ['a null result', facts(200, { result: null }), 'answered', 'null', undefined],
    ['a 201 result counts as 2xx', facts(201, { result: 1 }), 'answered', '1', undefined],
    [
      'widget hints removed',
      facts(200, { result: { a: 1, medianNavigateTo: '/orders/1', medianHighlight: '#order' } }),
      'answered',
      '{"a":1}',
      undefined,
    ],
    [
      'ok: false',
      facts(200, { result: { ok: false, reason: 'not_signed_in', detail: 'Sign in to see orders.' } }),
      'refused',
      'not_signed_in: Sign in to see orders.',
      'not_signed_in: Sign in to see orders.',
    ],
    ['known: false, default reason', facts(200, { result: { known: false, detail: 'No such order.' } }), 'refused', 'tool_refused: No such order.', 'tool_refused: No such order.'],
    ['allowed: false', facts(200, { result: { allowed: false, reason: 'r', detail: 'd' } }), 'refused', 'r: d', 'r: d'],
    ['outcome: blocked', facts(200, { result: { outcome: 'blocked', reason: 'r', detail: 'd' } }), 'refused', 'r: d', 'r: d'],
    ['a refusal without detail', facts(200, { result: { ok: false } }), 'refused', 'tool_refused', 'tool_refused'],
    ['ok: true is a result', facts(200, { result: { ok: true } }), 'answered', '{"ok":true}', undefined],
    [
      'outcome: unknown',
      facts(200, { result: { outcome: 'unknown', reason: 'timeout_upstream', detail: 'The payment provider did not answer.' } }),
      'unknown-outcome',
      'timeout_upstream: The payment provider did not answer. The action may have completed. Inspect its state before retrying and reuse the same tool call id.',
      'timeout_upstream: The payment provider did not answer. The action may have completed. Inspect its state before retrying and reuse the same tool call id.',
    ],
    ['execution_failed', facts(200, { error: { code: 'execution_failed', message: 'Order API is down' } }), 'threw', 'Order API is down', 'Order API is down'],
    [
      'execution_failed without a message',
      facts(200, { error: { code: 'execution_failed' } }),
      'threw',
      'The tool failed without saying why.',
      'The tool failed without saying why.',
    ],
    [
      'invalid_input',
      facts(400, { error: { code: 'invalid_input', message: 'orderNumber is required.' } }),
      'invalid-input',
      'orderNumber is required.',
      'The endpoint answered 400. invalid_input: orderNumber is required.',
    ],
    ['500 with an error body', facts(500, { error: { code: 'boom', message: 'it broke' } }), 'not-answering', NOT_ANSWERING, 'The endpoint answered 500. boom: it broke'],
    ['500 without a body', facts(500), 'not-answering', NOT_ANSWERING, 'The endpoint answered 500.'],
    ['502 with an HTML page', facts(502, '<html>Bad gateway</html>'), 'not-answering', NOT_ANSWERING, 'The endpoint answered 502.'],
    [
      '400 invalid_body',
      facts(400, { error: { code: 'invalid_body', message: 'The body has no tool.' } }),
      'not-answering',
      NOT_ANSWERING,
      'The endpoint answered 400. invalid_body: The body has no tool.',
    ],
    [
      '401 invalid_signature',
      facts(401, { error: { code: 'invalid_signature', message: 'x' } }),
      'not-answering',
      NOT_ANSWERING,
      'The endpoint answered 401. invalid_signature: x',
    ],
    ['404 with a code only', facts(404, { error: { code: 'unknown_tool' } }), 'not-answering', NOT_ANSWERING, 'The endpoint answered 404. unknown_tool'],
    ['a redirect', facts(302, '', { headers: { location: 'https://www.acme.com/' } }), 'not-answering', NOT_ANSWERING, 'The endpoint redirected, which tool calls never follow.'],
    ['a timeout', facts(null, null, { failure: 'timeout', durationMs: 10_000 }), 'not-answering', NOT_ANSWERING, 'The endpoint did not answer in time.'],
    ['a connection failure', facts(null, null, { failure: 'connection' }), 'not-answering', NOT_ANSWERING, 'The endpoint did not answer in time.'],
    ['the reader stopped at the limit', facts(200, '{"result":', { failure: 'too-large' }), 'not-answering', NOT_ANSWERING, 'The endpoint answered with too much to read.'],
    ['not JSON', facts(200, 'OK'), 'not-answering', NOT_ANSWERING, 'The endpoint did not answer with JSON.'],
    ['an empty 200', facts(200, ''), 'not-answering', NOT_ANSWERING, 'The endpoint did not answer with JSON.'],
    ['200 with neither result nor error', facts(200, { data: 1 }), 'not-answering', NOT_ANSWERING, 'The endpoint answered without a result or an error.'],
    ['200 with a JSON array', facts(200, [1]), 'not-answering', NOT_ANSWERING, 'The endpoint answered without a result or an error.'],
  ])('%s → %s', (_label, input, kind, agentSees, callError) => {
    const verdict = judgeAnswer(input);
    expect(verdict.kind).toBe(kind);
    expect(verdict.agentSees).toBe(agentSees);
    expect(verdict.callError).toBe(callError);
  });

  it('judges 200 + another error code as threw, with a warning', () => {
    const verdict = judgeAnswer(facts(200, { error: { code: 'invalid_input', message: 'x is required.' } }));
    expect(verdict).toMatchObject({ kind: 'threw', agentSees: 'x is required.' });
    expect(verdict.warnings.map((w) => w.code)).toEqual(['unexpected_error_code']);
  });

  it('judges 200 + diagnostics_unsupported as answered, not a fault', () => {
    const verdict = judgeAnswer(facts(200, { error: { code: 'diagnostics_unsupported', message: 'none' } }), MEDIAN_DIAGNOSTICS_LIMITS);
    expect(verdict).toMatchObject({ kind: 'answered', agentSees: 'none' });
    expect(verdict.callError).toBeUndefined();
    expect(verdict.warnings.map((w) => w.code)).toEqual(['diagnostics_unsupported']);
  });

  it('reads a Uint8Array body like a string body', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ result: { name: 'Zoë' } }));
    expect(judgeAnswer(facts(200, bytes)).agentSees).toBe('{"name":"Zoë"}');
  });
});

describe('judgeAnswer: warnings and edges', () => {
  const codes = (input: AnswerFacts, limits = MEDIAN_CALL_LIMITS): string[] => judgeAnswer(input, limits).warnings.map((w) => w.code);

  it.each<[string, AnswerFacts, string[]]>([
    ['a 4,000-character result', facts(200, { result: stringResultOfChars(4_000) }), []],
    ['a 4,001-character result', facts(200, { result: stringResultOfChars(4_001) }), ['result_truncated']],
    ['medianNavigateTo of 2,048', facts(200, { result: { medianNavigateTo: '/'.repeat(2_048) } }), []],
    ['medianNavigateTo of 2,049', facts(200, { result: { medianNavigateTo: '/'.repeat(2_049) } }), ['navigate_to_too_long']],
    ['medianHighlight of 256', facts(200, { result: { medianHighlight: '#'.repeat(256) } }), []],
    ['medianHighlight of 257', facts(200, { result: { medianHighlight: '#'.repeat(257) } }), ['highlight_too_long']],
    ['hints on a refusal', facts(200, { result: { ok: false, medianHighlight: '#'.repeat(257) } }), ['highlight_too_long']],
    ['answered in 7,999 ms', facts(200, { result: 1 }, { durationMs: 7_999 }), []],
    ['answered in 8,000 ms', facts(200, { result: 1 }, { durationMs: 8_000 }), ['near_timeout']],
    ['answered in exactly 10,000 ms', facts(200, { result: 1 }, { durationMs: 10_000 }), ['near_timeout']],
  ])('%s → %j', (_label, input, expected) => {
    expect(codes(input)).toEqual(expected);
  });

  it('cuts the agent text at exactly 4,000 characters', () => {
    expect(judgeAnswer(facts(200, { result: stringResultOfChars(4_000) })).agentSees).toHaveLength(4_000);
    const cut = judgeAnswer(facts(200, { result: stringResultOfChars(4_001) }));
    expect(cut.kind).toBe('answered');
    expect(cut.agentSees).toHaveLength(4_000);
  });

  it('gives up after 10,000 ms', () => {
    expect(judgeAnswer(facts(200, { result: 1 }, { durationMs: 10_000 })).kind).toBe('answered');
    expect(judgeAnswer(facts(200, { result: 1 }, { durationMs: 10_001 }))).toMatchObject({
      kind: 'not-answering',
      callError: 'The endpoint did not answer in time.',
    });
  });

  it.each<[string, AnswerFacts, VerdictKind]>([
    ['a body of exactly 100 KB', facts(200, resultBodyOfBytes(102_400)), 'answered'],
    ['a body of 100 KB + 1 byte', facts(200, resultBodyOfBytes(102_401)), 'not-answering'],
    ['a recorded body cut short, full size exactly 100 KB', facts(200, '{"result":1}', { bodySize: 102_400 }), 'answered'],
    ['a recorded body cut short, full size 100 KB + 1', facts(200, '{"result":1}', { bodySize: 102_401 }), 'not-answering'],
    ['a 500 over 100 KB', facts(500, resultBodyOfBytes(102_401)), 'not-answering'],
  ])('%s → %s', (_label, input, kind) => {
    const verdict = judgeAnswer(input);
    expect(verdict.kind).toBe(kind);
    if (kind === 'not-answering') expect(verdict.callError).toBe('The endpoint answered with too much to read.');
  });

  it('honours shorter limits (diagnostics: 8 s, 2,000 characters)', () => {
    const verdict = judgeAnswer(facts(200, { result: stringResultOfChars(2_001) }, { durationMs: 6_400 }), MEDIAN_DIAGNOSTICS_LIMITS);
    expect(verdict.agentSees).toHaveLength(2_000);
    expect(verdict.warnings.map((w) => w.code)).toEqual(['near_timeout', 'result_truncated']);
    expect(judgeAnswer(facts(200, { result: 1 }, { durationMs: 8_001 }), MEDIAN_DIAGNOSTICS_LIMITS).kind).toBe('not-answering');
  });

  it('words warnings with the numbers', () => {
    const [warning] = judgeAnswer(facts(200, { result: stringResultOfChars(4_001) })).warnings;
    expect(warning?.message).toBe('The result is 4,001 characters; the agent reads the first 4,000.');
  });
});
