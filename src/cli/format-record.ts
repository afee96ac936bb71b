import type { CallRecord } from '../median/call-record.js';
import { signatureAge } from '../median/signature.js';
import { verdictLabel } from '../median/approved-run.js';
import { safeJson, safeLine, safeStrings, safeText } from '../shared/output-sanitiser.js';
import { styleSignature, styleVerdict, type Style } from './terminal-style.js';
import { parseBoundedJson } from '../shared/safe-json.js';

/** A JSON body pretty-printed (escapes are JSON's), any other body with its line breaks kept and controls escaped. */
function prettyBody(body: string): string {
  if (body === '') return '(empty)';
  try {
    return safeJson(parseBoundedJson(body), 2);
  } catch {
    return safeText(body);
  }
}

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((line) => by + line)
    .join('\n');
}

function headerLines(headers: Record<string, string | string[]>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}`)
    .join('\n');
}

function formatAge(ms: number): string {
  const abs = Math.abs(ms);
  const text = abs < 1000 ? `${abs} ms` : abs < 120_000 ? `${(abs / 1000).toFixed(1)} s` : `${(abs / 60_000).toFixed(1)} min`;
  return ms >= 0 ? `${text} old when received` : `${text} in the future when received`;
}

/** The human view of one record (`median-dev show`). */
export function formatRecord(raw: CallRecord, style: Style): string {
  // Every field came from a request or an answer: one line each, controls escaped; bodies and the agent's text keep their lines.
  const record = safeStrings(raw, safeLine);
  const out: string[] = [];
  const title = record.tool ? `${record.tool} ${style.dim(record.toolCallId)}` : `${record.kind} ${style.dim(record.id)}`;
  out.push(style.bold(title));
  out.push(
    `${record.receivedAt}  ${record.response ? `HTTP ${record.response.status}` : 'no answer'}  ${styleVerdict(style, record.verdict.kind, verdictLabel(record.verdict))}  ${record.durationMs === null ? '' : `${Math.round(record.durationMs)} ms`}`,
  );
  const sigHeader = record.request.headers['median-signature'];
  const age = signatureAge(typeof sigHeader === 'string' ? sigHeader : undefined, Date.parse(record.receivedAt));
  out.push(`signature: ${styleSignature(style, record.signature)}${age === undefined ? '' : style.dim(` (${formatAge(age)})`)}`);
  if (record.replayOf) out.push(`replay of: ${record.replayOf}`);
  if (record.repeats !== undefined && record.repeats > 1) out.push(`repeated: ×${record.repeats}, the same outcome each time; the last at ${record.lastAt ?? '?'}`);
  if (record.conversationId) out.push(`conversation: ${record.conversationId}  risk: ${record.risk ?? '—'}`);
  if (record.error) out.push(style.red(`error: ${record.error.code}: ${record.error.message}`));
  if (record.lateAnswer) out.push(style.yellow('The route answered after the 10 s limit: Median had already given up.'));

  let parsed: unknown;
  try {
    parsed = parseBoundedJson(raw.request.body);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && 'input' in parsed) {
    out.push('', style.bold('Input'), indent(safeJson((parsed as { input: unknown }).input, 2)));
    if ('context' in parsed) out.push('', style.bold('Context'), indent(safeJson((parsed as { context: unknown }).context, 2)));
  }
  out.push('', style.bold('Request'), indent(`${record.request.method} ${record.request.path}`), indent(headerLines(record.request.headers)));
  out.push('', indent(prettyBody(raw.request.body)) + (record.request.truncated ? style.yellow(`\n  … cut at the recording limit (${record.request.size ?? '?'} bytes in all)`) : ''));
  out.push('', style.bold('Response'));
  if (record.response) {
    out.push(indent(`HTTP ${record.response.status}`), indent(headerLines(record.response.headers)), '');
    out.push(indent(prettyBody(raw.response?.body ?? '')) + (record.response.truncated ? style.yellow(`\n  … cut at the recording limit (${record.response.size ?? '?'} bytes in all)`) : ''));
  } else {
    out.push(indent(style.dim('(none)')));
  }
  out.push('', style.bold('What the agent sees'), indent(safeText(raw.verdict.agentSees) || style.dim('(nothing)')));
  if (record.verdict.callError) out.push(indent(style.dim(`Median's Logs: ${record.verdict.callError}`)));
  if (record.verdict.warnings.length > 0) {
    out.push('', style.bold('Warnings'));
    for (const warning of record.verdict.warnings) out.push(indent(style.yellow(`⚠ ${warning.message}`)) + style.dim(` [${warning.code}]`));
  }
  return out.join('\n');
}
