import type { CallRecord, RecordedMessage } from '../../median/call-record.js';
import { MEDIAN_CALL_LIMITS } from '../../median/verdict-types.js';
import { verdictLabel } from '../../median/approved-run.js';
import { formatDuration, verdictColor } from '../../presentation/index.js';
import { el, replaceChildren } from '../dom.js';
import type { Controller } from '../controller.js';
import type { InspectorState } from '../state.js';
import { bodyView, foldedText } from './json-view.js';
import { parseBoundedJson } from '../../shared/safe-json.js';

const section = (title: string, ...children: (Node | string | null)[]) => el('section', { class: 'card' }, el('h3', {}, title), ...children);
const field = (name: string, value: Node | string) => el('div', { class: 'field' }, el('span', { class: 'name' }, name), typeof value === 'string' ? el('span', {}, value) : value);

function headersTable(headers: RecordedMessage['headers']): HTMLElement {
  return el(
    'table',
    { class: 'headers' },
    ...Object.entries(headers).map(([name, value]) => el('tr', {}, el('th', {}, name), el('td', {}, Array.isArray(value) ? value.join(', ') : value))),
  );
}

/** The signature's age when the call arrived: `t=` against receivedAt. */
function signatureAge(record: CallRecord): string {
  const header = record.request.headers['median-signature'];
  const match = /(?:^|,)t=(\d+)/.exec(Array.isArray(header) ? header.join(',') : (header ?? ''));
  if (!match) return '';
  const ageMs = Date.parse(record.receivedAt) - Number(match[1]);
  if (!Number.isFinite(ageMs)) return '';
  const seconds = Math.abs(ageMs) / 1000;
  const text = seconds < 1 ? `${Math.round(Math.abs(ageMs))} ms` : `${seconds.toFixed(1)} s`;
  return ageMs >= 0 ? `signed ${text} before it arrived` : `signed ${text} after it arrived (a clock ahead)`;
}

/** What the agent sees, with the 4,000-character cut marked where it bit. */
function agentView(record: CallRecord): HTMLElement {
  const cut = record.verdict.warnings.find((w) => w.code === 'result_truncated');
  const text = el('pre', { class: 'text agent', data: { testid: 'agent-sees' } }, foldedText(record.verdict.agentSees));
  if (!cut) return text;
  return el('div', {}, text, el('div', { class: 'limit', data: { testid: 'cut-marker' } }, `✂ The agent reads no further: Median passes the first ${MEDIAN_CALL_LIMITS.agentReadChars.toLocaleString('en')} characters. ${cut.message}`));
}

function limitsOf(message: RecordedMessage, isResponse: boolean): HTMLElement[] {
  const marks: HTMLElement[] = [];
  const size = message.size ?? message.body.length;
  if (isResponse && size > MEDIAN_CALL_LIMITS.maxAnswerBytes) {
    marks.push(el('div', { class: 'limit', data: { testid: 'size-limit' } }, `Over Median's 100 KB answer limit (${size.toLocaleString('en')} bytes): the agent was told the tool is not answering.`));
  }
  if (message.truncated) marks.push(el('div', { class: 'limit' }, `Recorded cut at the recording limit (${size.toLocaleString('en')} bytes in all).`));
  return marks;
}

function contextView(record: CallRecord): HTMLElement | null {
  let context: Record<string, unknown> | undefined;
  try {
    context = (parseBoundedJson(record.request.body) as { context?: Record<string, unknown> }).context;
  } catch {
    return null;
  }
  if (!context) return null;
  const approvedBy = typeof context.approvedBy === 'string' ? context.approvedBy : null;
  // The docs: an approved or teammate-run call's toolCallId is the approval request's id.
  const approvalId = approvedBy && !/^(call|test)_/.test(record.toolCallId) ? record.toolCallId : null;
  return section(
    'Context',
    field('conversation', String(context.conversationId ?? '—')),
    field('risk', String(context.risk ?? '—')),
    approvedBy ? field('approvedBy', approvedBy) : null,
    approvalId ? field('approval id', approvalId) : null,
    el('div', { class: 'json' }, bodyView(JSON.stringify(context.visitor ?? null))),
  );
}

export function createDetailView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const element = el('section', { class: 'detail', data: { testid: 'detail' } });
  let drawn: InspectorState['detail'] | undefined;

  function draw(state: InspectorState): void {
    if (state.detail === drawn) return;
    drawn = state.detail;
    const detail = state.detail;
    delete element.dataset.recordId;
    if (!detail) {
      element.replaceChildren(el('p', { class: 'c-gray hint' }, 'Select a call to see it whole.'));
      return;
    }
    if (detail.error) {
      element.replaceChildren(el('p', { class: 'c-red' }, `${detail.error.message} [${detail.error.code}]`));
      return;
    }
    const record = detail.record;
    if (!record) {
      element.replaceChildren(el('p', { class: 'c-gray' }, 'Loading…'));
      return;
    }
    // Which record the detail shows (tests wait for it, not just for any detail).
    element.dataset.recordId = record.id;
    const isToolCall = record.kind === 'tool-call';
    const actions = el(
      'div',
      { class: 'actions' },
      isToolCall ? el('button', { data: { testid: 'replay' }, on: { click: () => controller.openReplay(record, { sendNow: true }) } }, 'Replay') : null,
      isToolCall ? el('button', { data: { testid: 'replay-new-id' }, on: { click: () => controller.openReplay(record, { isNewId: true, sendNow: true }) } }, 'Replay with a new id') : null,
      isToolCall ? el('button', { data: { testid: 'edit-replay' }, on: { click: () => controller.openReplay(record, { isNewId: true }) } }, 'Edit and replay…') : null,
      isToolCall ? el('button', { data: { testid: 'copy-curl' }, on: { click: () => void controller.copyCurl(record.id) } }, 'Copy as curl') : null,
      isToolCall ? el('button', { data: { testid: 'save-call' }, title: 'Save it under median-calls/ as a test for median-dev test', on: { click: () => void controller.saveCall(record.id) } }, 'Save as test') : null,
    );
    const curl = detail.curl ? el('pre', { class: 'text curl', data: { testid: 'curl' } }, detail.curl) : null;
    replaceChildren(
      element,
      el('header', {}, el('h2', {}, isToolCall ? (record.tool ?? '?') : `(${record.kind})`), el('div', { class: 'c-gray mono' }, record.toolCallId || record.id), actions, curl),
      section(
        'What the agent sees',
        field('verdict', el('span', { class: `c-${verdictColor(record.verdict.kind)}`, data: { testid: 'verdict' } }, verdictLabel(record.verdict))),
        agentView(record),
        record.verdict.callError ? field("Median's log", record.verdict.callError) : null,
        ...record.verdict.warnings.map((w) => el('div', { class: 'warning' }, `⚠ ${w.message} [${w.code}]`)),
      ),
      section(
        'Signature',
        field('outcome', el('span', { class: record.signature === 'valid' ? 'c-green' : record.signature === 'unchecked' ? 'c-gray' : 'c-red' }, record.signature)),
        field('age', signatureAge(record) || '—'),
        field('received', new Date(record.receivedAt).toLocaleString()),
        field('took', formatDuration(record.durationMs)),
        record.replayOf ? field('replay of', record.replayOf) : null,
        record.repeats !== undefined && record.repeats > 1 ? field('repeated', `×${record.repeats}, the same outcome each time; the last at ${new Date(record.lastAt ?? record.receivedAt).toLocaleString()}`) : null,
      ),
      contextView(record),
      section('Request', field('line', `${record.request.method} ${record.request.path}`), headersTable(record.request.headers), ...limitsOf(record.request, false), bodyView(record.request.body)),
      record.response
        ? section('Response', field('status', String(record.response.status)), headersTable(record.response.headers), ...limitsOf(record.response, true), bodyView(record.response.body))
        : section('Response', el('p', { class: 'c-red' }, record.error ? `No answer: ${record.error.message} [${record.error.code}]` : 'No answer.')),
    );
  }
  return { element, draw };
}
