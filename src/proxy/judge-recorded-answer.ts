/**
 * The verdict a record carries, by kind of request. Tool calls and
 * diagnostics are judged the way the agent would read them (judgeAnswer);
 * a manifest read the way a sync would (judgeSyncAnswer); connect and other
 * requests only on transport (answered or not).
 */
import {
  CALL_MESSAGES,
  MEDIAN_DIAGNOSTICS_LIMITS,
  SYNC_LIMITS,
  judgeAnswer,
  judgeSyncAnswer,
  parseConnectAnswer,
  parseErrorEnvelope,
  parseJsonBody,
  type AnswerFacts,
  type RequestKind,
  type Verdict,
  type VerdictLimits,
} from '../median/index.js';

/**
 * How long Median waits for this kind of request, or undefined when nothing
 * of Median's waits (connect is opened by the developer, other paths by
 * browsers).
 */
export function answerDeadlineMs(kind: RequestKind, limits: VerdictLimits): number | undefined {
  switch (kind) {
    case 'tool-call':
      return limits.timeoutMs;
    case 'diagnostics':
      return Math.min(limits.timeoutMs, MEDIAN_DIAGNOSTICS_LIMITS.timeoutMs);
    case 'manifest':
      return Math.min(limits.timeoutMs, SYNC_LIMITS.timeoutMs);
    case 'connect':
    case 'other':
      return undefined;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function hasAnswer(facts: AnswerFacts): facts is AnswerFacts & { status: number } {
  return typeof facts.status === 'number' && facts.failure !== 'connection' && facts.failure !== 'timeout';
}

function bytesOf(body: AnswerFacts['body']): Uint8Array {
  if (body === null) return new Uint8Array(0);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

function errorDetail(body: AnswerFacts['body']): string | undefined {
  if (body === null) return undefined;
  const parsed = parseJsonBody(body);
  const envelope = parsed.ok ? parseErrorEnvelope(parsed.value) : undefined;
  if (!envelope) return undefined;
  if (envelope.code !== undefined && envelope.message !== undefined) return `${envelope.code}: ${envelope.message}`;
  return envelope.code ?? envelope.message;
}

function judgeManifestRead(facts: AnswerFacts, endpointUrl: string): Verdict {
  const judged = judgeSyncAnswer(
    hasAnswer(facts)
      ? {
          kind: 'answer',
          status: facts.status,
          headers: facts.headers,
          body: bytesOf(facts.body),
          bodyTooLarge: (facts.bodySize ?? 0) > SYNC_LIMITS.maxManifestBytes || facts.failure === 'too-large',
        }
      : { kind: 'no-answer' },
    endpointUrl,
  );
  if (!judged.ok) return { kind: 'not-answering', agentSees: '', warnings: [], callError: judged.message };
  const names = judged.manifest.tools.map((tool) => tool.name);
  return { kind: 'answered', agentSees: `${names.length} tools: ${names.join(', ')}`, warnings: [] };
}

function judgeTransport(kind: 'connect' | 'other', facts: AnswerFacts): Verdict {
  if (!hasAnswer(facts)) {
    return { kind: 'not-answering', agentSees: '', warnings: [], callError: CALL_MESSAGES.noAnswerInTime };
  }
  const { status } = facts;
  const fine = kind === 'other' ? status < 400 : status >= 200 && status < 300;
  if (!fine) {
    return {
      kind: 'not-answering',
      agentSees: '',
      warnings: [],
      callError: CALL_MESSAGES.answeredStatus(status, errorDetail(facts.body)),
    };
  }
  if (kind === 'connect' && facts.body !== null) {
    const parsed = parseJsonBody(facts.body);
    const answer = parsed.ok ? parseConnectAnswer(parsed.value) : undefined;
    if (answer) return { kind: 'answered', agentSees: answer.message, warnings: [] };
  }
  return { kind: 'answered', agentSees: '', warnings: [] };
}

/**
 * The verdict for one recorded exchange. `endpointUrl` names the route (for
 * a manifest read's redirect message); `limits` are Median's, or shortened.
 */
export function judgeRecordedAnswer(
  kind: RequestKind,
  facts: AnswerFacts,
  limits: VerdictLimits,
  endpointUrl: string,
): Verdict {
  switch (kind) {
    case 'tool-call':
      return judgeAnswer(facts, limits);
    case 'diagnostics':
      return judgeAnswer(facts, {
        timeoutMs: Math.min(limits.timeoutMs, MEDIAN_DIAGNOSTICS_LIMITS.timeoutMs),
        maxAnswerBytes: limits.maxAnswerBytes,
        agentReadChars: MEDIAN_DIAGNOSTICS_LIMITS.agentReadChars,
      });
    case 'manifest':
      return judgeManifestRead(facts, endpointUrl);
    case 'connect':
    case 'other':
      return judgeTransport(kind, facts);
    default: {
      const never: never = kind;
      return never;
    }
  }
}
