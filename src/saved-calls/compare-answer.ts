import { diffLines, type DiffLine } from '../median/response-diff.js';
import type { Verdict } from '../median/verdict-types.js';
import { findNoise, withIgnored } from './ignore-paths.js';
import type { SavedCall } from './saved-call.js';
import { canonicalJson, jsonText, stableJson } from './stable-json.js';

/** The route's answer to a saved call sent again, judged as Median would. */
export interface FreshAnswer {
  status: number | null;
  body: string | null;
  durationMs: number;
  verdict: Verdict;
}

/** What a failing saved call shows, most important first (the agent's view leads). */
export type CheckProblemCode = 'verdict' | 'status' | 'body' | 'limit' | 'tool-gone' | 'input-invalid' | 'risk-changed';

export interface CheckProblem {
  code: CheckProblemCode;
  message: string;
}

export interface Comparison {
  problems: CheckProblem[];
  /** The saved answer against the new one, in unified form with 3 lines of context (ignored paths shown as ‹ignored›); null when the bodies agree. */
  diff: string | null;
}

const CONTEXT_LINES = 3;
const MAX_PATHS_NAMED = 3;

/** "was `answered`, now `invalid-input`: orderNumber is required." — in the agent's terms. */
export function describeVerdictChange(expected: SavedCall['expect'], verdict: Verdict): string {
  const said = verdict.kind === 'not-answering' ? (verdict.callError ?? verdict.agentSees) : verdict.agentSees;
  const tail = said.length > 200 ? `${said.slice(0, 200)}…` : said;
  return `was ${expected.verdict}, now ${verdict.kind}${tail ? `: ${tail}` : ''}`;
}


/** Changed lines with a few lines of context around each, `@@` between the pieces. */
export function unifiedDiff(lines: readonly DiffLine[], header: readonly string[]): string {
  const keep = new Set<number>();
  lines.forEach((line, i) => {
    if (line.op === ' ') return;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(lines.length - 1, i + CONTEXT_LINES); j++) keep.add(j);
  });
  const out = [...header];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (last !== -1 && i !== last + 1) out.push('@@');
    out.push(`${lines[i]!.op} ${lines[i]!.text}`);
    last = i;
  }
  return out.join('\n');
}

function bodyProblem(saved: SavedCall, answer: FreshAnswer): { problem: CheckProblem; diff: string } | null {
  const { expect } = saved;
  if (expect.isBodyCut) return null;
  const header = [`--- saved ${saved.name}  HTTP ${expect.status ?? '—'}  ${expect.verdict}`, `+++ now   HTTP ${answer.status ?? '—'}  ${answer.verdict.kind}`];
  const ignore = saved.ignore ?? [];
  if (expect.body !== undefined) {
    const fresh = jsonText(answer.body);
    const was = withIgnored(expect.body, ignore);
    if (fresh.ok) {
      const now = withIgnored(fresh.value, ignore);
      if (canonicalJson(was) === canonicalJson(now)) return null;
      const paths = findNoise(was, now);
      const named = paths.length === 0 ? 'the whole answer' : paths.slice(0, MAX_PATHS_NAMED).join(', ') + (paths.length > MAX_PATHS_NAMED ? ` and ${paths.length - MAX_PATHS_NAMED} more` : '');
      return {
        problem: { code: 'body', message: `the answer differs at ${named}` },
        diff: unifiedDiff(diffLines(stableJson(was).split('\n'), stableJson(now).split('\n')), header),
      };
    }
    return {
      problem: { code: 'body', message: answer.body === null ? 'no answer came' : 'the answer is no longer JSON' },
      diff: unifiedDiff(diffLines(stableJson(was).split('\n'), (answer.body ?? '(no answer)').split('\n')), header),
    };
  }
  const wasText = expect.bodyText ?? null;
  if (wasText === answer.body) return null;
  return {
    problem: { code: 'body', message: 'the answer differs' },
    diff: unifiedDiff(diffLines((wasText ?? '(no answer)').split('\n'), (answer.body ?? '(no answer)').split('\n')), header),
  };
}

/**
 * Compares a saved call's expectation with a new answer. In order: the
 * verdict kind (what the agent would be told), the HTTP status, the body
 * except for ignored paths, and the docs' limits (a verdict warning the saved
 * answer did not have: the 4,000-character read, `medianNavigateTo` and
 * `medianHighlight` lengths, an answer close to 10 s; over 100 KB is the
 * `not-answering` verdict itself).
 */
export function compareAnswer(saved: SavedCall, answer: FreshAnswer): Comparison {
  const problems: CheckProblem[] = [];
  const { expect } = saved;
  if (answer.verdict.kind !== expect.verdict) problems.push({ code: 'verdict', message: describeVerdictChange(expect, answer.verdict) });
  if (answer.status !== expect.status) problems.push({ code: 'status', message: `HTTP was ${expect.status ?? 'no answer'}, now ${answer.status ?? 'no answer'}` });
  const body = bodyProblem(saved, answer);
  if (body) problems.push(body.problem);
  const known = new Set(expect.warnings);
  for (const warning of answer.verdict.warnings) {
    if (!known.has(warning.code)) problems.push({ code: 'limit', message: `${warning.message} [${warning.code}]` });
  }
  return { problems, diff: body?.diff ?? null };
}
