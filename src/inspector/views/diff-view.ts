import { diffResponses } from '../../median/response-diff.js';
import { verdictColor } from '../../presentation/index.js';
import { el } from '../dom.js';
import type { Controller } from '../controller.js';
import { sideBySide } from '../side-by-side.js';
import type { InspectorState } from '../state.js';

/** A replay against its original, side by side: status, verdict, and the answers line by line. */
export function createDiffView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const element = el('div', { class: 'overlay', data: { testid: 'diff' } });
  let drawn: InspectorState['diff'] | undefined;

  function draw(state: InspectorState): void {
    if (state.diff === drawn) return;
    drawn = state.diff;
    element.hidden = !state.diff;
    if (!state.diff) return;
    const { original, replay } = state.diff;
    const diff = diffResponses(original, replay);
    const side = (title: string, record: typeof original) =>
      el(
        'div',
        { class: 'diff-head' },
        el('strong', {}, title),
        el('span', { class: 'mono c-gray' }, ` ${record.toolCallId || record.id}`),
        el('span', {}, `  HTTP ${record.response?.status ?? '—'}  `),
        el('span', { class: `c-${verdictColor(record.verdict.kind)}` }, record.verdict.kind),
      );
    const rows = sideBySide(diff.lines).map((row) =>
      el('tr', { class: `d-${row.kind}` }, el('td', { class: 'mono' }, row.left ?? ''), el('td', { class: 'mono' }, row.right ?? '')),
    );
    element.replaceChildren(
      el(
        'div',
        { class: 'dialog wide' },
        el('header', {}, el('h2', {}, `Replay of ${original.tool ?? original.toolCallId}`), el('button', { class: 'close', data: { testid: 'close-diff' }, on: { click: () => controller.dispatch({ type: 'diff-closed' }) } }, '×')),
        el('div', { class: 'diff-heads' }, side('original', original), side('replay', replay)),
        diff.isSame ? el('p', { class: 'c-green', data: { testid: 'diff-same' } }, 'The answers are the same.') : null,
        el('div', { class: 'diff-scroll' }, el('table', { class: 'diff' }, ...rows)),
      ),
    );
  }
  return { element, draw };
}
