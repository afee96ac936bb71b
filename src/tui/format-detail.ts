import { signatureAge, verdictLabel, type CallRecord } from '../median/index.js';
import { formatClock, formatDuration, statusColor, verdictColor } from '../presentation/index.js';
import { plainText, seg, wrapText, type StyledLine } from './styled-text.js';
import { parseBoundedJson, stringifySafely } from '../shared/safe-json.js';
import { DEFAULT_PASTABLE, pastableLine, type PastableCommand } from './tui-state.js';

/** The detail pane never holds more lines than this (`median-dev show` has the rest). */
export const MAX_DETAIL_LINES = 3000;

function pretty(text: string): string {
  if (text === '') return '(empty)';
  try {
    return stringifySafely(parseBoundedJson(text), 2);
  } catch {
    return text;
  }
}

function parseJson(text: string): unknown {
  try {
    return parseBoundedJson(text);
  } catch {
    return undefined;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Authorization values are never shown whole (the recorder masks them too). */
function maskedHeader(name: string, value: string | string[]): string {
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (name.toLowerCase() !== 'authorization') return text;
  return text.replace(/^(\S+\s+)?(\S*?)(\S{0,4})$/, (_all, scheme: string | undefined, _secret: string, tail: string) => `${scheme ?? ''}…${tail}`);
}

function formatAge(ms: number): string {
  const abs = Math.abs(ms);
  const text = abs < 1000 ? `${abs} ms` : abs < 120_000 ? `${(abs / 1000).toFixed(1)} s` : `${(abs / 60_000).toFixed(1)} min`;
  return ms >= 0 ? `signed ${text} before it arrived` : `signed ${text} in the future`;
}

/** The input and context of a tool call, pretty-printed, if the body holds them. */
export function callPartsOf(record: CallRecord): { input?: unknown; context?: unknown } {
  const body = parseJson(record.request.body);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const { input, context } = body as { input?: unknown; context?: unknown };
  return { input, context };
}

/** The text `e` opens in the editor: the call's input as pretty JSON. */
export function editableInputOf(record: CallRecord): string | undefined {
  const { input } = callPartsOf(record);
  return input === undefined ? undefined : `${stringifySafely(input, 2)}\n`;
}

function section(title: string): StyledLine {
  return [seg(`── ${title} `, 'cyan', { bold: true })];
}

/** Everything about one call, for the detail pane; lines are wrapped at `width` when given. */
export function formatDetailLines(record: CallRecord, width?: number, pastable: PastableCommand = DEFAULT_PASTABLE): StyledLine[] {
  const lines: StyledLine[] = [];
  const text = (value: string, color?: Parameters<typeof seg>[1]) => {
    for (const line of width ? wrapText(value, width) : value.split('\n')) lines.push([seg(line, color)]);
  };
  const status = record.response?.status;
  const title = record.kind === 'tool-call' ? (record.tool ?? '?') : `(${record.kind})`;
  lines.push([seg(title, undefined, { bold: true }), seg(`  ${record.toolCallId || record.id}`, 'gray')]);
  lines.push([
    seg(`${formatClock(record.receivedAt)}  `, 'gray'),
    seg(status === undefined ? 'no answer' : `HTTP ${status}`, statusColor(status)),
    seg('  '),
    seg(verdictLabel(record.verdict), verdictColor(record.verdict.kind), { bold: true }),
    seg(`  ${formatDuration(record.durationMs)}`),
    seg(record.risk ? `  risk ${record.risk}` : '', record.risk === 'high' || record.risk === 'reviewed' ? 'yellow' : undefined),
  ]);
  const signed = headerValue(record.request.headers['median-signature']);
  const age = signatureAge(signed, Date.parse(record.receivedAt));
  lines.push([
    seg('signature '),
    record.signature === 'valid' ? seg('✓ valid', 'green') : seg(record.signature === 'unchecked' ? 'unchecked (no key)' : `✗ ${record.signature}`, record.signature === 'unchecked' ? 'gray' : 'red'),
    seg(age === undefined ? '' : `  (${formatAge(age)})`, 'gray'),
  ]);
  if (record.conversationId) text(`conversation ${record.conversationId}`, 'gray');
  if (record.replayOf) text(`↻ replay of ${record.replayOf}`, 'cyan');
  if (record.repeats !== undefined && record.repeats > 1) text(`×${record.repeats}: made again with the same outcome, the last at ${record.lastAt ?? '?'}`, 'yellow');
  if (record.error) text(`error ${record.error.code}: ${record.error.message}`, 'red');
  if (record.lateAnswer) text('The route answered after the 10 s limit: Median had already given up.', 'yellow');

  if (record.verdict.warnings.length > 0) {
    lines.push(section('Warnings'));
    for (const warning of record.verdict.warnings) text(`⚠ ${warning.message} [${warning.code}]`, 'yellow');
  }
  lines.push(section('What the agent sees'));
  text(record.verdict.agentSees || '(nothing)', record.verdict.agentSees ? undefined : 'gray');
  if (record.verdict.callError) text(`Median's Logs: ${record.verdict.callError}`, 'gray');

  const { input, context } = callPartsOf(record);
  if (input !== undefined) {
    lines.push(section('Input'));
    text(stringifySafely(input, 2));
  }
  if (context !== undefined) {
    lines.push(section('Context'));
    text(stringifySafely(context, 2));
  }
  lines.push(section(record.response ? `Response HTTP ${record.response.status}` : 'Response'));
  if (record.response) {
    text(pretty(record.response.body));
    if (record.response.truncated) text(`… cut at the recording limit (${record.response.size ?? '?'} bytes in all)`, 'yellow');
  } else {
    text('(none)', 'gray');
  }
  lines.push(section('Request'));
  text(`${record.request.method} ${record.request.path}`);
  for (const [name, value] of Object.entries(record.request.headers)) text(`${name}: ${maskedHeader(name, value)}`, 'gray');
  if (input === undefined) {
    text(pretty(record.request.body));
    if (record.request.truncated) text(`… cut at the recording limit (${record.request.size ?? '?'} bytes in all)`, 'yellow');
  }
  if (lines.length > MAX_DETAIL_LINES) {
    const hidden = lines.length - MAX_DETAIL_LINES + 1;
    lines.length = MAX_DETAIL_LINES - 1;
    lines.push([seg(`… ${hidden} more lines: ${pastableLine(pastable, `show ${record.toolCallId || record.id}`)}`, 'yellow')]);
  }
  return lines;
}

export function formatDetail(record: CallRecord, width?: number): string[] {
  return formatDetailLines(record, width).map(plainText);
}

let cached: { record: CallRecord; width: number | undefined; pastable: PastableCommand; lines: StyledLine[] } | undefined;

/** formatDetailLines, remembered for the last record and width (redraws and scrolling reuse it). */
export function detailLinesOf(record: CallRecord, width?: number, pastable: PastableCommand = DEFAULT_PASTABLE): StyledLine[] {
  if (cached?.record !== record || cached.width !== width || cached.pastable !== pastable) {
    cached = { record, width, pastable, lines: formatDetailLines(record, width, pastable) };
  }
  return cached.lines;
}
