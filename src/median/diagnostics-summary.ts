import { judgeAnswer, MEDIAN_DIAGNOSTICS_LIMITS } from './verdict.js';
import type { AnswerFacts } from './verdict-types.js';

/**
 * A diagnostics answer as a person would say it, judged as Median does
 * ("Median waits 8 seconds and keeps the first 2,000 characters"; 200 with
 * diagnostics_unsupported "when you collect nothing" is no fault).
 */
export function describeDiagnosticsAnswer(facts: AnswerFacts): string {
  const ms = `${Math.round(facts.durationMs)} ms`;
  const verdict = judgeAnswer(facts, MEDIAN_DIAGNOSTICS_LIMITS);
  if (verdict.warnings.some((w) => w.code === 'diagnostics_unsupported')) return `the route collects none (diagnostics_unsupported, not a fault); answered in ${ms}.`;
  if (verdict.kind === 'answered') {
    const isCut = verdict.warnings.some((w) => w.code === 'result_truncated');
    const chars = verdict.agentSees.length.toLocaleString('en-US');
    return `the route answered in ${ms}; Median keeps ${isCut ? `the first ${chars} characters` : `all ${chars} characters`} of it.`;
  }
  return `Median would get nothing usable: ${verdict.callError ?? verdict.agentSees} (${ms}).`;
}
