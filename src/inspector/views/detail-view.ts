import { callDetailOf, type DetailField, type DetailNote, type DetailSection } from '../../presentation/index.js';
import { el, replaceChildren } from '../dom.js';
import type { Controller } from '../controller.js';
import type { InspectorState } from '../state.js';
import { bodyView, foldedText, jsonTree } from './json-view.js';

const card = (title: string, ...children: (Node | string | null)[]) => el('section', { class: 'card' }, el('h3', {}, title), ...children);
const fieldRow = (name: string, value: Node | string) => el('div', { class: 'field' }, el('span', { class: 'name' }, name), typeof value === 'string' ? el('span', {}, value) : value);

/** Test ids the page's tests and its users' scripts find things by. */
const FIELD_TESTIDS: Partial<Record<DetailField['key'], string>> = { verdict: 'verdict' };
const NOTE_TESTIDS: Partial<Record<DetailNote['kind'], string>> = { 'agent-cut': 'cut-marker', 'size-limit': 'size-limit' };

function headersTable(headers: [string, string][]): HTMLElement {
  return el('table', { class: 'headers' }, ...headers.map(([name, value]) => el('tr', {}, el('th', {}, name), el('td', {}, value))));
}

function fieldOf(f: DetailField): HTMLElement {
  // Times as this browser writes them; the rest as the shared detail says.
  const value = f.key === 'received' ? new Date(f.value).toLocaleString() : f.value;
  const testid = FIELD_TESTIDS[f.key];
  return fieldRow(f.name, el('span', { ...(f.color ? { class: `c-${f.color}` } : {}), ...(testid ? { data: { testid } } : {}) }, value));
}

function noteOf(note: DetailNote): HTMLElement {
  const testid = NOTE_TESTIDS[note.kind];
  return el('div', { class: note.kind === 'warning' ? 'warning' : note.kind === 'no-answer' ? 'c-red' : 'limit', ...(testid ? { data: { testid } } : {}) }, note.text);
}

/** One section of src/presentation's callDetailOf, as a card. */
function sectionCard(part: DetailSection): HTMLElement {
  return card(
    part.title,
    ...part.fields.map(fieldOf),
    part.key === 'agent' ? el('pre', { class: 'text agent', data: { testid: 'agent-sees' } }, foldedText(part.text ?? '')) : null,
    part.json === undefined ? null : el('div', { class: 'json' }, jsonTree(part.json)),
    part.headers ? headersTable(part.headers) : null,
    ...part.notes.map(noteOf),
    part.body === undefined ? null : bodyView(part.body),
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
    const shown = callDetailOf(record);
    const isToolCall = shown.isToolCall;
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
      el('header', {}, el('h2', {}, shown.title), el('div', { class: 'c-gray mono' }, shown.id), actions, curl),
      ...shown.problems.map(noteOf),
      ...shown.sections.map(sectionCard),
    );
  }
  return { element, draw };
}
