import { CALL_MESSAGES } from './messages.js';
import { bodyByteLength, parseErrorEnvelope, parseJsonBody } from './route-parser.js';
import {
  MEDIAN_CALL_LIMITS,
  type AnswerFacts,
  type Verdict,
  type VerdictKind,
  type VerdictLimits,
  type VerdictWarning,
} from './verdict-types.js';

/**
 * Limits for a diagnostics request: "Median waits 8 seconds and keeps the
 * first 2,000 characters". Pass them to judgeAnswer for a diagnostics answer.
 */
export const MEDIAN_DIAGNOSTICS_LIMITS: Readonly<VerdictLimits> = Object.freeze({
  timeoutMs: 8_000,
  maxAnswerBytes: MEDIAN_CALL_LIMITS.maxAnswerBytes,
  agentReadChars: 2_000,
});

/** Widget hints in a result (removed before the agent reads it) and their limits. */
export const RESULT_HINT_LIMITS = Object.freeze({ navigateToChars: 2_048, highlightChars: 256 });

/** An answer this close to the limit (share of timeoutMs) gets `near_timeout`. */
export const NEAR_TIMEOUT_SHARE = 0.8;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function verdict(kind: VerdictKind, agentSees: string, warnings: VerdictWarning[], callError?: string): Verdict {
  return callError === undefined ? { kind, agentSees, warnings } : { kind, agentSees, warnings, callError };
}

function notAnswering(callError: string, warnings: VerdictWarning[] = []): Verdict {
  return verdict('not-answering', CALL_MESSAGES.agentNotAnswering, warnings, callError);
}

/** The first `max` characters, as the agent reads them. */
function cut(text: string, max: number): string {
  return text.slice(0, max);
}

/** A number that is not NaN or ±Infinity (whatever a record on disk holds). */
function isFiniteNumber(value: unknown): value is number {
  return Number.isFinite(value);
}

function hintWarnings(result: Json): VerdictWarning[] {
  const warnings: VerdictWarning[] = [];
  const navigateTo = result['medianNavigateTo'];
  if (typeof navigateTo === 'string' && navigateTo.length > RESULT_HINT_LIMITS.navigateToChars) {
    warnings.push({
      code: 'navigate_to_too_long',
      message: `medianNavigateTo is ${fmt(navigateTo.length)} characters; the most is ${fmt(RESULT_HINT_LIMITS.navigateToChars)}.`,
    });
  }
  const highlight = result['medianHighlight'];
  if (typeof highlight === 'string' && highlight.length > RESULT_HINT_LIMITS.highlightChars) {
    warnings.push({
      code: 'highlight_too_long',
      message: `medianHighlight is ${fmt(highlight.length)} characters; the most is ${fmt(RESULT_HINT_LIMITS.highlightChars)}.`,
    });
  }
  return warnings;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A 2xx JSON answer: result, refusal, error envelope, or neither. */
function judgeBody(json: unknown, limits: VerdictLimits, warnings: VerdictWarning[]): Verdict {
  if (!isObject(json)) return notAnswering(CALL_MESSAGES.neitherResultNorError, warnings);

  // An error envelope wins over a result when a hand-rolled route sends both:
  // it is the route saying the tool threw.
  if (Object.hasOwn(json, 'error')) {
    const envelope = parseErrorEnvelope(json);
    const code = envelope?.code;
    if (code === 'diagnostics_unsupported') {
      // The diagnostics answer "when you collect nothing": not a fault.
      warnings.push({ code: 'diagnostics_unsupported', message: 'The route collects no diagnostics (not a fault).' });
      // Stryker disable next-line OptionalChaining: the code was read from the envelope, so it is there.
      return verdict('answered', cut(envelope?.message ?? '', limits.agentReadChars), warnings);
    }
    if (code !== 'execution_failed') {
      // Median reads any error envelope on a 200 as the tool failing, so the
      // agent reads its message; we flag the odd code.
      warnings.push({
        code: 'unexpected_error_code',
        message: `A 200 answer carried error code ${JSON.stringify(code ?? null)}; only execution_failed (or diagnostics_unsupported) belongs on a 200.`,
      });
    }
    const said = cut(nonEmptyString(envelope?.message) ?? CALL_MESSAGES.failedWithoutSaying, limits.agentReadChars);
    return verdict('threw', said, warnings, said);
  }

  if (!Object.hasOwn(json, 'result')) return notAnswering(CALL_MESSAGES.neitherResultNorError, warnings);
  const result = json['result'];

  if (isObject(result)) {
    warnings.push(...hintWarnings(result));
    const reason = nonEmptyString(result['reason']) ?? CALL_MESSAGES.defaultReason;
    const detail = typeof result['detail'] === 'string' ? result['detail'] : '';
    if (result['outcome'] === 'unknown') {
      const said = cut(`${CALL_MESSAGES.refusal(reason, detail)} ${CALL_MESSAGES.unknownOutcomeTail}`, limits.agentReadChars);
      return verdict('unknown-outcome', said, warnings, said);
    }
    if (result['ok'] === false || result['known'] === false || result['allowed'] === false || result['outcome'] === 'blocked') {
      const said = cut(CALL_MESSAGES.refusal(reason, detail), limits.agentReadChars);
      return verdict('refused', said, warnings, said);
    }
  }

  let text: string;
  if (isObject(result)) {
    const { medianNavigateTo: _n, medianHighlight: _h, ...rest } = result;
    text = JSON.stringify(rest);
  } else if (typeof result === 'string') {
    // A string is read as the text it is, not as JSON with its two quotes.
    text = result;
  } else {
    // Stryker disable next-line StringLiteral: a parsed JSON value is never undefined; the fallback only satisfies the types.
    text = JSON.stringify(result) ?? 'null';
  }
  if (text.length > limits.agentReadChars) {
    warnings.push({
      code: 'result_truncated',
      message: `The result is ${fmt(text.length)} characters; the agent reads the first ${fmt(limits.agentReadChars)}.`,
    });
  }
  return verdict('answered', cut(text, limits.agentReadChars), warnings);
}

function errorDetail(body: string | Uint8Array): string | undefined {
  const parsed = parseJsonBody(body);
  // Stryker disable next-line ConditionalExpression: a shortcut only; a failed parse has no value, and no value has no envelope.
  if (!parsed.ok) return undefined;
  const envelope = parseErrorEnvelope(parsed.value);
  if (!envelope) return undefined;
  const code = nonEmptyString(envelope.code);
  const message = nonEmptyString(envelope.message);
  if (code !== undefined && message !== undefined) return `${code}: ${message}`;
  return code ?? message;
}

function judge(facts: AnswerFacts, limits: VerdictLimits): Verdict {
  const status = facts.status;
  const failure = facts.failure;
  const duration = typeof facts.durationMs === 'number' ? facts.durationMs : Number.NaN;

  if (failure === 'timeout' || failure === 'connection' || !isFiniteNumber(status)) {
    return notAnswering(CALL_MESSAGES.noAnswerInTime);
  }
  if (duration > limits.timeoutMs) return notAnswering(CALL_MESSAGES.noAnswerInTime);

  const warnings: VerdictWarning[] = [];
  if (duration >= limits.timeoutMs * NEAR_TIMEOUT_SHARE) {
    warnings.push({
      code: 'near_timeout',
      message: `The answer took ${fmt(duration)} ms; Median gives up at ${fmt(limits.timeoutMs)} ms.`,
    });
  }

  // Redirects are never followed, whatever the body.
  if (status >= 300 && status < 400) return notAnswering(CALL_MESSAGES.redirected, warnings);

  // No body (null or missing) and a body of another type are alike: nothing to read.
  const body = facts.body;
  const bodyIsReadable = typeof body === 'string' || body instanceof Uint8Array;
  const size = Math.max(isFiniteNumber(facts.bodySize) ? facts.bodySize : 0, bodyIsReadable ? bodyByteLength(body) : 0);
  if (failure === 'too-large' || size > limits.maxAnswerBytes) return notAnswering(CALL_MESSAGES.tooMuch, warnings);

  // (3xx was answered above.)
  if (status < 200 || status >= 400) {
    const detail = bodyIsReadable ? errorDetail(body) : undefined;
    const callError = CALL_MESSAGES.answeredStatus(status, detail);
    if (status === 400 && bodyIsReadable) {
      const parsed = parseJsonBody(body);
      const envelope = parsed.ok ? parseErrorEnvelope(parsed.value) : undefined;
      if (envelope?.code === 'invalid_input') {
        const said = cut(nonEmptyString(envelope.message) ?? CALL_MESSAGES.failedWithoutSaying, limits.agentReadChars);
        return verdict('invalid-input', said, warnings, callError);
      }
    }
    return notAnswering(callError, warnings);
  }

  // Stryker disable next-line ConditionalExpression: narrows the type only; parseJsonBody reports a missing or unreadable body as not JSON too.
  if (!bodyIsReadable) return notAnswering(CALL_MESSAGES.notJson, warnings);
  const parsed = parseJsonBody(body);
  if (!parsed.ok) return notAnswering(CALL_MESSAGES.notJson, warnings);
  return judgeBody(parsed.value, limits, warnings);
}

/**
 * What the agent would make of an answer to a tool call (SPEC §2.3, the docs'
 * "What the agent does when a tool fails" and "Call errors"). In order: no
 * answer or over the time limit, redirect, over the size limit, non-2xx
 * (400 invalid_input is the agent's to fix), not JSON, then the body.
 *
 * Decisions the docs leave open (ours):
 * - Any 2xx counts like 200.
 * - 200 + `{error}` with a code other than execution_failed: `threw` (the
 *   agent reads the message) with an `unexpected_error_code` warning.
 * - 200 + `diagnostics_unsupported`: `answered` with a warning (the
 *   diagnostics answer "when you collect nothing"). Judge diagnostics answers
 *   with MEDIAN_DIAGNOSTICS_LIMITS (8 s, 2,000 characters).
 * - `near_timeout` applies to any answer that came in time.
 *
 * Never throws, whatever `facts` holds.
 */
export function judgeAnswer(facts: AnswerFacts, limits: VerdictLimits = MEDIAN_CALL_LIMITS): Verdict {
  try {
    // Facts that are no object at all have no status either: judge() answers them the same way.
    if (facts === null || facts === undefined) return notAnswering(CALL_MESSAGES.noAnswerInTime);
    return judge(facts, limits ?? MEDIAN_CALL_LIMITS);
  } catch {
    // Judging must never break the proxy; an answer we cannot even read is
    // one Median could not read either.
    return notAnswering(CALL_MESSAGES.notJson);
  }
}

