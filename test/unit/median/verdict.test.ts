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

/** A string result of exactly `chars` characters (the agent reads the string, not its JSON quotes). */
const stringResultOfChars = (chars: number): string => 'x'.repeat(chars);

describe('judgeAnswer: kinds', () => {
  it.each<[string, AnswerFacts, VerdictKind, string, string | undefined]>([
    ['a result', facts(200, { result: { status: 'shipped' } }), 'answered', '{"status":"shipped"}', undefined],
    ['a string result', facts(200, { result: 'done' }), 'answered', 'done', undefined],
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
    ['a refusal without detail', facts(200, { result: { ok: false } }), 'refused', 'tool_refused:', 'tool_refused:'],
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
  ])('%s', (_label, input, kind, agentSees, callError) => {
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
    ['a 3,999-character string, measured without its JSON quotes', facts(200, { result: stringResultOfChars(3_999) }), []],
    ['medianNavigateTo of 2,048', facts(200, { result: { medianNavigateTo: '/'.repeat(2_048) } }), []],
    ['medianNavigateTo of 2,049', facts(200, { result: { medianNavigateTo: '/'.repeat(2_049) } }), ['navigate_to_too_long']],
    ['medianHighlight of 256', facts(200, { result: { medianHighlight: '#'.repeat(256) } }), []],
    ['medianHighlight of 257', facts(200, { result: { medianHighlight: '#'.repeat(257) } }), ['highlight_too_long']],
    ['hints on a refusal', facts(200, { result: { ok: false, medianHighlight: '#'.repeat(257) } }), ['highlight_too_long']],
    ['answered in 7,999 ms', facts(200, { result: 1 }, { durationMs: 7_999 }), []],
    ['answered in 8,000 ms', facts(200, { result: 1 }, { durationMs: 8_000 }), ['near_timeout']],
    ['answered in exactly 10,000 ms', facts(200, { result: 1 }, { durationMs: 10_000 }), ['near_timeout']],
  ])('%s', (_label, input, expected) => {
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
  ])('%s', (_label, input, kind) => {
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

/** kind, agentSees, callError and warning codes of a verdict, for table rows. */
function summary(input: AnswerFacts, limits = MEDIAN_CALL_LIMITS): [VerdictKind, string, string | undefined, string[]] {
  const v = judgeAnswer(input, limits);
  return [v.kind, v.agentSees, v.callError, v.warnings.map((w) => w.code)];
}

const NO_ANSWER = 'The endpoint did not answer in time.';
const NOT_JSON = 'The endpoint did not answer with JSON.';
const NEITHER = 'The endpoint answered without a result or an error.';
const SILENT = 'The tool failed without saying why.';

describe('judgeAnswer: status codes and the invalid_input rule', () => {
  const invalidInput = { error: { code: 'invalid_input', message: 'orderNumber is required.' } };

  it.each<[string, AnswerFacts, [VerdictKind, string, string | undefined, string[]]]>([
    // Only a 400 invalid_input is the agent's own fault to fix; the same code on
    // any other status is the endpoint failing.
    ['422 invalid_input', facts(422, invalidInput), ['not-answering', NOT_ANSWERING, 'The endpoint answered 422. invalid_input: orderNumber is required.', []]],
    ['500 invalid_input', facts(500, invalidInput), ['not-answering', NOT_ANSWERING, 'The endpoint answered 500. invalid_input: orderNumber is required.', []]],
    ['401 invalid_input', facts(401, invalidInput), ['not-answering', NOT_ANSWERING, 'The endpoint answered 401. invalid_input: orderNumber is required.', []]],
    ['400 invalid_input without a message', facts(400, { error: { code: 'invalid_input' } }), ['invalid-input', SILENT, 'The endpoint answered 400. invalid_input', []]],
    ['400 invalid_input with an empty message', facts(400, { error: { code: 'invalid_input', message: '' } }), ['invalid-input', SILENT, 'The endpoint answered 400. invalid_input', []]],
    ['400 with an error message but no code', facts(400, { error: { message: 'bad' } }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 400. bad', []]],
    ['400 not JSON', facts(400, 'invalid_input'), ['not-answering', NOT_ANSWERING, 'The endpoint answered 400.', []]],
    ['400 without a body', facts(400), ['not-answering', NOT_ANSWERING, 'The endpoint answered 400.', []]],
    ['400 invalid_input as bytes', facts(400, new TextEncoder().encode(JSON.stringify(invalidInput))), ['invalid-input', 'orderNumber is required.', 'The endpoint answered 400. invalid_input: orderNumber is required.', []]],
    ['500 with empty code and message', facts(500, { error: { code: '', message: '' } }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 500.', []]],
    ['500 with a non-object error', facts(500, { error: 'boom' }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 500.', []]],
    ['199 (below 2xx)', facts(199, { result: 1 }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 199.', []]],
    ['200 (first 2xx)', facts(200, { result: 1 }), ['answered', '1', undefined, []]],
    ['299 (last 2xx)', facts(299, { result: 1 }), ['answered', '1', undefined, []]],
    ['300 (first redirect)', facts(300, { result: 1 }), ['not-answering', NOT_ANSWERING, 'The endpoint redirected, which tool calls never follow.', []]],
    ['399 (last redirect)', facts(399, { result: 1 }), ['not-answering', NOT_ANSWERING, 'The endpoint redirected, which tool calls never follow.', []]],
    ['400 with a result', facts(400, { result: 1 }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 400.', []]],
  ])('%s', (_label, input, expected) => {
    expect(summary(input)).toEqual(expected);
  });

  it('cuts an invalid_input message where the agent stops reading', () => {
    const message = 'm'.repeat(2_500);
    const verdict = judgeAnswer(facts(400, { error: { code: 'invalid_input', message } }), MEDIAN_DIAGNOSTICS_LIMITS);
    expect(verdict.kind).toBe('invalid-input');
    expect(verdict.agentSees).toBe('m'.repeat(2_000));
  });
});

describe('judgeAnswer: answers that never came', () => {
  it.each<[string, AnswerFacts]>([
    ['a timeout even with a status', facts(200, { result: 1 }, { failure: 'timeout' })],
    ['a connection failure even with a status', facts(200, { result: 1 }, { failure: 'connection' })],
    ['a status that is not a number', { ...facts(200, { result: 1 }), status: '200' as unknown as number }],
    ['a NaN status', facts(Number.NaN, { result: 1 })],
    ['an infinite status', facts(Number.POSITIVE_INFINITY, { result: 1 })],
    ['no status', facts(null, { result: 1 })],
  ])('%s → not answering in time', (_label, input) => {
    expect(summary(input)).toEqual(['not-answering', NOT_ANSWERING, NO_ANSWER, []]);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'facts'],
    ['a number', 200],
  ])('facts that are %s → not answering in time', (_label, input) => {
    expect(summary(input as AnswerFacts)).toEqual(['not-answering', NOT_ANSWERING, NO_ANSWER, []]);
  });

  it('facts that throw when read → not JSON, never a throw', () => {
    const hostile = Object.defineProperty({ headers: {}, body: null, durationMs: 1 }, 'status', {
      get() {
        throw new Error('unreadable');
      },
    }) as unknown as AnswerFacts;
    expect(summary(hostile)).toEqual(['not-answering', NOT_ANSWERING, NOT_JSON, []]);
  });

  it('uses Median’s limits when none (or null) are given', () => {
    const late = facts(200, { result: 1 }, { durationMs: 9_000 });
    expect(summary(late, null as unknown as typeof MEDIAN_CALL_LIMITS)).toEqual(['answered', '1', undefined, ['near_timeout']]);
    expect(summary(late, undefined)).toEqual(['answered', '1', undefined, ['near_timeout']]);
  });

  it('an unknown duration is no reason to give up or warn', () => {
    expect(summary(facts(200, { result: 1 }, { durationMs: 'slow' as unknown as number }))).toEqual(['answered', '1', undefined, []]);
  });

  it('words the near_timeout warning with the numbers', () => {
    const [warning] = judgeAnswer(facts(200, { result: 1 }, { durationMs: 9_500 })).warnings;
    expect(warning).toEqual({ code: 'near_timeout', message: 'The answer took 9,500 ms; Median gives up at 10,000 ms.' });
  });

  it('keeps the near_timeout warning on a redirect, an oversized answer and a failed status', () => {
    const slow = { durationMs: 9_000 };
    expect(summary(facts(302, '', slow))[3]).toEqual(['near_timeout']);
    expect(summary(facts(200, resultBodyOfBytes(102_401), slow))[3]).toEqual(['near_timeout']);
    expect(summary(facts(500, '', slow))[3]).toEqual(['near_timeout']);
    expect(summary(facts(200, 'OK', slow))[3]).toEqual(['near_timeout']);
    expect(summary(facts(200, { data: 1 }, slow))[3]).toEqual(['near_timeout']);
  });
});

describe('judgeAnswer: bodies and sizes', () => {
  it.each<[string, AnswerFacts, [VerdictKind, string, string | undefined, string[]]]>([
    ['a 200 without a body', facts(200), ['not-answering', NOT_ANSWERING, NOT_JSON, []]],
    ['a 200 whose body is undefined', facts(200, null, { body: undefined as unknown as null }), ['not-answering', NOT_ANSWERING, NOT_JSON, []]],
    ['a 200 whose body is neither text nor bytes', facts(200, null, { body: { result: 1 } as unknown as string }), ['not-answering', NOT_ANSWERING, NOT_JSON, []]],
    ['a 500 whose body is neither text nor bytes', facts(500, null, { body: 42 as unknown as string }), ['not-answering', NOT_ANSWERING, 'The endpoint answered 500.', []]],
    ['a JSON null', facts(200, 'null'), ['not-answering', NOT_ANSWERING, NEITHER, []]],
    ['a JSON string', facts(200, '"result"'), ['not-answering', NOT_ANSWERING, NEITHER, []]],
    ['a result inherited, not own', facts(200, '{"__proto__":{"result":1}}'), ['not-answering', NOT_ANSWERING, NEITHER, []]],
    ['an array result', facts(200, { result: [1, 'two'] }), ['answered', '[1,"two"]', undefined, []]],
    ['an array result with a refusal-looking element', facts(200, { result: [{ ok: false }] }), ['answered', '[{"ok":false}]', undefined, []]],
    ['a numeric bodySize that is not finite', facts(200, { result: 1 }, { bodySize: Number.POSITIVE_INFINITY }), ['answered', '1', undefined, []]],
    ['a bodySize that is not a number', facts(200, { result: 1 }, { bodySize: '999999' as unknown as number }), ['answered', '1', undefined, []]],
    // A duration read from disk as text is no duration: neither over the limit nor near it.
    ['a duration that is text, not a number', facts(200, { result: 1 }, { durationMs: '20000' as unknown as number }), ['answered', '1', undefined, []]],
    ['a duration that is infinite', facts(200, { result: 1 }, { durationMs: Number.POSITIVE_INFINITY }), ['not-answering', NOT_ANSWERING, NO_ANSWER, []]],
    ['a too-large failure on a small body', facts(200, { result: 1 }, { failure: 'too-large' }), ['not-answering', NOT_ANSWERING, 'The endpoint answered with too much to read.', []]],
    ['a bodySize smaller than the body received: the body counts', facts(200, resultBodyOfBytes(102_401), { bodySize: 5 }), ['not-answering', NOT_ANSWERING, 'The endpoint answered with too much to read.', []]],
    ['an unreadable body with a bodySize over the limit', facts(200, null, { body: 42 as unknown as string, bodySize: 102_401 }), ['not-answering', NOT_ANSWERING, 'The endpoint answered with too much to read.', []]],
  ])('%s', (_label, input, expected) => {
    expect(summary(input)).toEqual(expected);
  });

  it('measures a string body in UTF-8 bytes, not characters', () => {
    // 34,134 three-byte characters: 102,402 bytes (over 100 KB) in under 40,000 characters.
    const body = `{"result":"${'€'.repeat(34_130)}"}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(102_400);
    expect(summary(facts(200, body))).toEqual(['not-answering', NOT_ANSWERING, 'The endpoint answered with too much to read.', []]);
  });

  it('a verdict that is no error carries no callError key at all', () => {
    expect(Object.keys(judgeAnswer(facts(200, { result: 1 })))).toEqual(['kind', 'agentSees', 'warnings']);
    expect(Object.keys(judgeAnswer(facts(500)))).toEqual(['kind', 'agentSees', 'warnings', 'callError']);
  });
});

describe('judgeAnswer: results, refusals and error envelopes on a 2xx', () => {
  it.each<[string, unknown, [VerdictKind, string, string | undefined, string[]]]>([
    ['execution_failed has no warning', { error: { code: 'execution_failed', message: 'down' } }, ['threw', 'down', 'down', []]],
    ['an error that is a string', { error: 'down' }, ['threw', SILENT, SILENT, ['unexpected_error_code']]],
    ['an error with an empty message', { error: { code: 'execution_failed', message: '' } }, ['threw', SILENT, SILENT, []]],
    ['an error wins over a result', { result: 1, error: { code: 'execution_failed', message: 'down' } }, ['threw', 'down', 'down', []]],
    ['diagnostics_unsupported without a message', { error: { code: 'diagnostics_unsupported' } }, ['answered', '', undefined, ['diagnostics_unsupported']]],
    ['a refusal with an empty reason', { result: { ok: false, reason: '', detail: 'd' } }, ['refused', 'tool_refused: d', 'tool_refused: d', []]],
    ['a refusal with a non-string detail', { result: { ok: false, reason: 'r', detail: 7 } }, ['refused', 'r:', 'r:', []]],
    ['a refusal with a non-string reason', { result: { ok: false, reason: 5, detail: 'd' } }, ['refused', 'tool_refused: d', 'tool_refused: d', []]],
    ['known: true is a result', { result: { known: true } }, ['answered', '{"known":true}', undefined, []]],
    ['allowed: true is a result', { result: { allowed: true } }, ['answered', '{"allowed":true}', undefined, []]],
    ['ok: "false" (a string) is a result', { result: { ok: 'false' } }, ['answered', '{"ok":"false"}', undefined, []]],
    ['outcome: done is a result', { result: { outcome: 'done' } }, ['answered', '{"outcome":"done"}', undefined, []]],
    ['outcome: unknown without reason or detail', { result: { outcome: 'unknown' } }, ['unknown-outcome', 'tool_refused: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', 'tool_refused: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', []]],
    ['outcome: unknown wins over ok: false', { result: { outcome: 'unknown', ok: false, reason: 'r' } }, ['unknown-outcome', 'r: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', 'r: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', []]],
    ['hints on an unknown outcome are checked', { result: { outcome: 'unknown', medianNavigateTo: '/'.repeat(2_049) } }, ['unknown-outcome', 'tool_refused: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', 'tool_refused: The action may have completed. Inspect its state before retrying and reuse the same tool call id.', ['navigate_to_too_long']]],
    ['hints that are not strings are left alone', { result: { medianNavigateTo: 5, medianHighlight: true } }, ['answered', '{}', undefined, []]],
  ])('%s', (_label, body, expected) => {
    expect(summary(facts(200, body))).toEqual(expected);
  });

  it('words the unexpected_error_code warning with the code, or null without one', () => {
    expect(judgeAnswer(facts(200, { error: { code: 'boom', message: 'm' } })).warnings).toEqual([
      {
        code: 'unexpected_error_code',
        message: 'A 200 answer carried error code "boom"; only execution_failed (or diagnostics_unsupported) belongs on a 200.',
      },
    ]);
    expect(judgeAnswer(facts(200, { error: { message: 'm' } })).warnings[0]?.message).toBe(
      'A 200 answer carried error code null; only execution_failed (or diagnostics_unsupported) belongs on a 200.',
    );
  });

  it('words the hint warnings with the numbers', () => {
    const verdict = judgeAnswer(facts(200, { result: { medianNavigateTo: '/'.repeat(3_000), medianHighlight: '#'.repeat(1_257) } }));
    expect(verdict.warnings).toEqual([
      { code: 'navigate_to_too_long', message: 'medianNavigateTo is 3,000 characters; the most is 2,048.' },
      { code: 'highlight_too_long', message: 'medianHighlight is 1,257 characters; the most is 256.' },
    ]);
  });

  it('words the diagnostics_unsupported warning', () => {
    expect(judgeAnswer(facts(200, { error: { code: 'diagnostics_unsupported' } })).warnings).toEqual([
      { code: 'diagnostics_unsupported', message: 'The route collects no diagnostics (not a fault).' },
    ]);
  });

  it.each<[string, unknown, VerdictKind]>([
    ['a thrown message', { error: { code: 'execution_failed', message: 'e'.repeat(2_500) } }, 'threw'],
    ['a refusal', { result: { ok: false, reason: 'r', detail: 'd'.repeat(2_500) } }, 'refused'],
    ['an unknown outcome', { result: { outcome: 'unknown', reason: 'r', detail: 'd'.repeat(2_500) } }, 'unknown-outcome'],
    ['a diagnostics_unsupported message', { error: { code: 'diagnostics_unsupported', message: 'n'.repeat(2_500) } }, 'answered'],
  ])('cuts %s where the agent stops reading', (_label, body, kind) => {
    const verdict = judgeAnswer(facts(200, body), MEDIAN_DIAGNOSTICS_LIMITS);
    expect(verdict.kind).toBe(kind);
    expect(verdict.agentSees).toHaveLength(2_000);
    if (verdict.callError !== undefined) expect(verdict.callError).toBe(verdict.agentSees);
  });

  it('does not warn about a result of exactly the limit, and cuts only past it', () => {
    const exact = judgeAnswer(facts(200, { result: stringResultOfChars(2_000) }), MEDIAN_DIAGNOSTICS_LIMITS);
    expect(exact.warnings).toEqual([]);
    expect(exact.agentSees).toBe(stringResultOfChars(2_000));
  });

  it('holds Median’s diagnostics limits', () => {
    expect(MEDIAN_DIAGNOSTICS_LIMITS).toEqual({ timeoutMs: 8_000, maxAnswerBytes: 102_400, agentReadChars: 2_000 });
    expect(Object.isFrozen(MEDIAN_DIAGNOSTICS_LIMITS)).toBe(true);
  });
});
