import { el, setText } from '../dom.js';
import { parseBoundedJson } from '../../shared/safe-json.js';

/** Strings longer than this are folded, with a button that shows the rest. */
export const FOLD_AT = 300;

/** A long string shown folded; the button unfolds it in place. */
export function foldedText(text: string, className = ''): HTMLElement {
  if (text.length <= FOLD_AT) return el('span', { class: className }, text);
  const shown = el('span', { class: className }, text.slice(0, FOLD_AT));
  const button = el('button', { class: 'link fold', data: { testid: 'unfold' } }, `… ${(text.length - FOLD_AT).toLocaleString('en')} more characters`);
  button.addEventListener('click', () => {
    setText(shown, text);
    button.remove();
  });
  return el('span', {}, shown, button);
}

function scalar(value: unknown): HTMLElement {
  if (typeof value === 'string') return el('span', { class: 'j-string' }, '"', foldedText(value), '"');
  if (value === null) return el('span', { class: 'j-null' }, 'null');
  if (typeof value === 'number') return el('span', { class: 'j-number' }, String(value));
  if (typeof value === 'boolean') return el('span', { class: 'j-bool' }, String(value));
  return el('span', {}, String(value));
}

/** JSON pretty and collapsible: objects and arrays as <details>, open down to `openDepth`. */
export function jsonTree(value: unknown, openDepth = 3, depth = 0): HTMLElement {
  if (typeof value !== 'object' || value === null) return scalar(value);
  const isArray = Array.isArray(value);
  const entries: [string, unknown][] = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) return el('span', {}, isArray ? '[]' : '{}');
  const summary = el('summary', {}, isArray ? `[ ${entries.length} item${entries.length === 1 ? '' : 's'} ]` : `{ ${entries.length} field${entries.length === 1 ? '' : 's'} }`);
  const body = el(
    'div',
    { class: 'j-body' },
    ...entries.map(([key, child]) => el('div', { class: 'j-entry' }, isArray ? null : el('span', { class: 'j-key' }, `${key}: `), jsonTree(child, openDepth, depth + 1))),
  );
  const details = el('details', { class: 'j-node' }, summary, body);
  details.open = depth < openDepth;
  return details;
}

/** A body: a JSON tree when it parses, else the text (folded when long). */
export function bodyView(body: string): HTMLElement {
  if (body === '') return el('span', { class: 'c-gray' }, '(empty)');
  try {
    return el('div', { class: 'json' }, jsonTree(parseBoundedJson(body)));
  } catch {
    return el('pre', { class: 'text' }, foldedText(body));
  }
}
