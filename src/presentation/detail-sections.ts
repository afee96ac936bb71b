import type { CallRecord, RecordedMessage } from '../median/call-record.js';
import { verdictLabel } from '../median/approved-run.js';
import { MEDIAN_CALL_LIMITS } from '../median/verdict-types.js';
import { parseBoundedJson } from '../shared/safe-json.js';
import { statusColor, verdictColor } from './call-colors.js';
import type { Color } from './color.js';
import { formatDuration } from './format-time.js';

/**
 * One call's detail, as both screens show it: the sections, their titles and
 * order, which fields each holds, and the cut rule. The terminal UI
 * (src/tui/format-detail.ts) and the browser inspector
 * (src/inspector/views/detail-view.ts) only render this list, each in its
 * own look; a field or section added here shows in both. Node-free: the
 * inspector's bundle uses it.
 */

export type DetailSectionKey = 'agent' | 'signature' | 'context' | 'input' | 'response' | 'request';

export type DetailFieldKey =
  | 'verdict'
  | 'callError'
  | 'outcome'
  | 'age'
  | 'received'
  | 'took'
  | 'replayOf'
  | 'repeated'
  | 'conversation'
  | 'risk'
  | 'approvedBy'
  | 'approvalId'
  | 'line'
  | 'status';

export interface DetailField {
  key: DetailFieldKey;
  /** Its name on the screen. */
  name: string;
  value: string;
  color?: Color;
}

/** A line under a section's fields: a warning, a limit that bit, a cut. */
export interface DetailNote {
  kind: 'warning' | 'agent-cut' | 'size-limit' | 'recording-cut' | 'no-answer';
  text: string;
  color: Color;
}

export interface DetailSection {
  key: DetailSectionKey;
  title: string;
  fields: DetailField[];
  /** The agent's words (`agent`). */
  text?: string;
  /** A value shown whole as JSON (`input`, `context`). */
  json?: unknown;
  /** Recorded headers (`request`, `response`), Authorization never whole. */
  headers?: [string, string][];
  /** A recorded body as it came (`request`: left out when `input` shows it; `response`). */
  body?: string;
  notes: DetailNote[];
}

export interface CallDetail {
  /** The tool, or `(kind)` for what is not a tool call. */
  title: string;
  /** Its toolCallId, else the record id. */
  id: string;
  isToolCall: boolean;
  /** What went wrong around the call itself (no answer, a late answer). */
  problems: DetailNote[];
  sections: DetailSection[];
}

/** The terminal UI's detail never holds more lines than this; `median-dev show` has the rest. */
export const MAX_DETAIL_LINES = 3000;

/**
 * The cut rule: at most `max` lines; past it, the last line says how many
 * more there are (`more(hidden)`: and where, `median-dev show <id>`).
 */
export function cutDetail<T>(lines: T[], max: number, more: (hidden: number) => T): T[] {
  if (lines.length <= max) return lines;
  const hidden = lines.length - max + 1;
  return [...lines.slice(0, max - 1), more(hidden)];
}

/** How old the signature was when the call arrived: `t=` against receivedAt. */
export function signatureAgeText(record: CallRecord): string | undefined {
  const header = record.request.headers['median-signature'];
  const match = /(?:^|,)t=(\d+)/.exec(Array.isArray(header) ? header.join(',') : (header ?? ''));
  if (!match) return undefined;
  const ageMs = Date.parse(record.receivedAt) - Number(match[1]);
  if (!Number.isFinite(ageMs)) return undefined;
  const abs = Math.abs(ageMs);
  const text = abs < 1000 ? `${Math.round(abs)} ms` : `${(abs / 1000).toFixed(1)} s`;
  return ageMs >= 0 ? `signed ${text} before it arrived` : `signed ${text} after it arrived (a clock ahead)`;
}

/** Authorization values are never shown whole (the recorder masks them too). */
export function maskedHeader(name: string, value: string | string[]): string {
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (name.toLowerCase() !== 'authorization') return text;
  return text.replace(/^(\S+\s+)?(\S*?)(\S{0,4})$/, (_all, scheme: string | undefined, _secret: string, tail: string) => `${scheme ?? ''}…${tail}`);
}

/** The input and context of a tool call, if the body holds them. */
export function callPartsOf(record: CallRecord): { input?: unknown; context?: unknown } {
  let body: unknown;
  try {
    body = parseBoundedJson(record.request.body);
  } catch {
    return {};
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const { input, context } = body as { input?: unknown; context?: unknown };
  return { input, context };
}

const field = (key: DetailFieldKey, name: string, value: string, color?: Color): DetailField => (color === undefined ? { key, name, value } : { key, name, value, color });

function agentSection(record: CallRecord): DetailSection {
  const { verdict } = record;
  const notes: DetailNote[] = [];
  const cut = verdict.warnings.find((w) => w.code === 'result_truncated');
  if (cut) notes.push({ kind: 'agent-cut', text: `✂ The agent reads no further: Median passes the first ${MEDIAN_CALL_LIMITS.agentReadChars.toLocaleString('en')} characters. ${cut.message}`, color: 'yellow' });
  for (const warning of verdict.warnings) notes.push({ kind: 'warning', text: `⚠ ${warning.message} [${warning.code}]`, color: 'yellow' });
  return {
    key: 'agent',
    title: 'What the agent sees',
    fields: [field('verdict', 'verdict', verdictLabel(verdict), verdictColor(verdict.kind)), ...(verdict.callError ? [field('callError', "Median's Logs", verdict.callError, 'gray')] : [])],
    text: verdict.agentSees,
    notes,
  };
}

function signatureSection(record: CallRecord): DetailSection {
  const outcome = record.signature === 'valid' ? '✓ valid' : record.signature === 'unchecked' ? 'unchecked (no key)' : `✗ ${record.signature}`;
  const fields = [
    field('outcome', 'outcome', outcome, record.signature === 'valid' ? 'green' : record.signature === 'unchecked' ? 'gray' : 'red'),
    field('age', 'age', signatureAgeText(record) ?? '—', 'gray'),
    field('received', 'received', record.receivedAt),
    field('took', 'took', formatDuration(record.durationMs)),
  ];
  if (record.replayOf) fields.push(field('replayOf', 'replay of', record.replayOf, 'cyan'));
  if (record.repeats !== undefined && record.repeats > 1) {
    fields.push(field('repeated', 'repeated', `×${record.repeats}: made again with the same outcome, the last at ${record.lastAt ?? record.receivedAt}`, 'yellow'));
  }
  return { key: 'signature', title: 'Signature', fields, notes: [] };
}

function contextSection(record: CallRecord, context: unknown): DetailSection | undefined {
  if (context === undefined) return undefined;
  const facts = typeof context === 'object' && context !== null && !Array.isArray(context) ? (context as Record<string, unknown>) : {};
  const approvedBy = typeof facts.approvedBy === 'string' ? facts.approvedBy : null;
  // The docs: an approved or teammate-run call's toolCallId is the approval request's id.
  const approvalId = approvedBy && !/^(call|test)_/.test(record.toolCallId) ? record.toolCallId : null;
  const risk = String(facts.risk ?? record.risk ?? '—');
  const fields = [
    field('conversation', 'conversation', String(facts.conversationId ?? record.conversationId ?? '—'), 'gray'),
    field('risk', 'risk', risk, risk === 'high' || risk === 'reviewed' ? 'yellow' : undefined),
  ];
  if (approvedBy) fields.push(field('approvedBy', 'approvedBy', approvedBy));
  if (approvalId) fields.push(field('approvalId', 'approval id', approvalId));
  return { key: 'context', title: 'Context', fields, json: context, notes: [] };
}

function limitNotes(message: RecordedMessage, isResponse: boolean): DetailNote[] {
  const notes: DetailNote[] = [];
  const size = message.size ?? message.body.length;
  if (isResponse && size > MEDIAN_CALL_LIMITS.maxAnswerBytes) {
    notes.push({ kind: 'size-limit', text: `Over Median's 100 KB answer limit (${size.toLocaleString('en')} bytes): the agent was told the tool is not answering.`, color: 'red' });
  }
  if (message.truncated) notes.push({ kind: 'recording-cut', text: `… cut at the recording limit (${message.size?.toLocaleString('en') ?? '?'} bytes in all)`, color: 'yellow' });
  return notes;
}

function headerPairs(headers: RecordedMessage['headers']): [string, string][] {
  return Object.entries(headers).map(([name, value]) => [name, maskedHeader(name, value)]);
}

function responseSection(record: CallRecord): DetailSection {
  const { response } = record;
  if (!response) {
    const text = record.error ? `No answer: ${record.error.message} [${record.error.code}]` : 'No answer.';
    return { key: 'response', title: 'Response', fields: [], notes: [{ kind: 'no-answer', text, color: 'red' }] };
  }
  return {
    key: 'response',
    title: `Response HTTP ${response.status}`,
    fields: [field('status', 'status', String(response.status), statusColor(response.status))],
    headers: headerPairs(response.headers),
    body: response.body,
    notes: limitNotes(response, true),
  };
}

function requestSection(record: CallRecord, hasInput: boolean): DetailSection {
  return {
    key: 'request',
    title: 'Request',
    fields: [field('line', 'line', `${record.request.method} ${record.request.path}`)],
    headers: headerPairs(record.request.headers),
    ...(hasInput ? {} : { body: record.request.body }),
    notes: hasInput ? [] : limitNotes(record.request, false),
  };
}

/**
 * The detail's sections in the order both screens show them: what the agent
 * sees (its verdict, the words, Median's log line, the warnings and the
 * 4,000-character cut), the signature, the context, the input, the response,
 * the request (its body only when no input was read from it).
 */
export function callDetailOf(record: CallRecord): CallDetail {
  const { input, context } = callPartsOf(record);
  const problems: DetailNote[] = [];
  if (record.error) problems.push({ kind: 'no-answer', text: `error ${record.error.code}: ${record.error.message}`, color: 'red' });
  if (record.lateAnswer) problems.push({ kind: 'warning', text: 'The route answered after the 10 s limit: Median had already given up.', color: 'yellow' });
  const sections = [
    agentSection(record),
    signatureSection(record),
    contextSection(record, context),
    input === undefined ? undefined : ({ key: 'input', title: 'Input', fields: [], json: input, notes: [] } satisfies DetailSection),
    responseSection(record),
    requestSection(record, input !== undefined),
  ].filter((section): section is DetailSection => section !== undefined);
  return {
    title: record.kind === 'tool-call' ? (record.tool ?? '?') : `(${record.kind})`,
    id: record.toolCallId || record.id,
    isToolCall: record.kind === 'tool-call',
    problems,
    sections,
  };
}
