import { describeDiagnosticsAnswer } from '../../median/diagnostics-summary.js';
import { judgeAnswer, MEDIAN_DIAGNOSTICS_LIMITS } from '../../median/verdict.js';
import { secretsToMask } from '../../median/key.js';
import type { AnswerFacts } from '../../median/verdict-types.js';
import { withRecordedPath } from '../../daemon/recorded-path.js';
import { sendSignedCall } from '../../replay/send-signed-call.js';
import { isMedianDevError, MedianDevError } from '../../shared/errors.js';
import { safeText } from '../../shared/output-sanitiser.js';
import { systemClock } from '../../shared/clock.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { createOutputMasker } from '../output-masker.js';
import { requireSecret } from '../require-secret.js';
import { createStyle } from '../terminal-style.js';

const BODY = '{"op":"diagnostics"}';

/**
 * `median-dev diagnostics`: the signed `{"op":"diagnostics"}` Median sends when
 * a report is filed, with Median's limits: it waits 8 seconds and keeps the
 * first 2,000 characters. Prints what Median would keep.
 */
export async function runDiagnostics(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const secret = requireSecret(config, 'A diagnostics request');
  const clock = io.clock ?? systemClock;
  const started = clock.now();
  let facts: AnswerFacts;
  try {
    const { value: answer } = await withRecordedPath(config, ({ routeUrl }) =>
      sendSignedCall({ url: routeUrl, body: BODY, secret, timeoutMs: MEDIAN_DIAGNOSTICS_LIMITS.timeoutMs, clock }),
    );
    facts = { status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs };
  } catch (error) {
    // Median gives up after 8 s: a route that took longer gave it nothing.
    const cause = isMedianDevError(error) ? (error.cause as { name?: string } | undefined) : undefined;
    if (cause?.name !== 'TimeoutError') throw error;
    facts = { status: null, headers: {}, body: null, durationMs: clock.now() - started, failure: 'timeout' };
  }
  const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
  const verdict = mask.value(judgeAnswer(facts, MEDIAN_DIAGNOSTICS_LIMITS));
  const summary = mask.text(describeDiagnosticsAnswer(facts));
  const isUsable = verdict.kind === 'answered';
  const isCut = verdict.warnings.some((w) => w.code === 'result_truncated');
  if (config.json) {
    writeJson(io, { status: facts.status, durationMs: Math.round(facts.durationMs), kept: isUsable ? verdict.agentSees : null, isCut, summary, verdict });
  } else {
    const style = createStyle(useColor(io));
    writeLine(io.stdout, `Diagnostics: ${summary}`);
    if (isUsable && verdict.agentSees !== '') writeLine(io.stdout, `${style.bold('Median keeps:')} ${safeText(verdict.agentSees)}`);
    if (isCut) writeLine(io.stdout, style.yellow('⚠ The answer is over 2,000 characters: Median keeps only the first 2,000. Put what matters first.'));
  }
  if (!isUsable) {
    throw new MedianDevError('tool_call_failed', 'The diagnostics answer gives Median nothing to keep.', {
      hint: 'Answer 200 {"result": …} within 8 seconds, or 200 with diagnostics_unsupported when the route collects nothing.',
    });
  }
}
