import { el, setText } from '../dom.js';
import type { Controller } from '../controller.js';
import { rowAt, type InspectorState } from '../state.js';
import { COLUMN_TITLES, rowElement } from './row-cells.js';

export const ROW_HEIGHT = 26;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 10;

/**
 * The call list, virtualised: a spacer as tall as every row, and only the
 * rows in view (plus a few) in the DOM, whatever the count. Newest on top;
 * while the user is at the top it follows new calls; scrolled down, the rows
 * in view stay put as calls arrive above them.
 */
export function createListView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const spacer = el('div', { class: 'spacer' });
  const viewport = el('div', { class: 'list-viewport', attrs: { role: 'grid', tabindex: '0' }, data: { testid: 'call-list' } }, spacer);
  const titles = el('div', { class: 'row titles' }, ...COLUMN_TITLES.map((title) => el('span', {}, title)));
  const empty = el('div', { class: 'empty' });
  const element = el('section', { class: 'list' }, titles, viewport, empty);
  let drawnTotal = 0;
  let drawnRows = new Map<string, HTMLElement>();
  let last: { list: InspectorState['list']; selectedId: string | null; top: number; height: number } | undefined;

  viewport.addEventListener('scroll', () => {
    controller.dispatch({ type: 'list-scrolled', isAtTop: viewport.scrollTop < ROW_HEIGHT / 2 });
    draw(controller.state());
  });
  viewport.addEventListener('click', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('.row');
    if (row?.dataset.id) controller.select(row.dataset.id);
  });
  viewport.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const state = controller.state();
    const rows = [...spacer.querySelectorAll<HTMLElement>('.row')];
    const at = rows.findIndex((row) => row.dataset.id === state.selectedId);
    const next = rows[Math.max(0, Math.min(rows.length - 1, at + (event.key === 'ArrowDown' ? 1 : -1)))];
    if (next?.dataset.id) controller.select(next.dataset.id);
  });

  function draw(state: InspectorState): void {
    const { list } = state;
    // Calls added above a scrolled list push it down by as many rows: keep the same rows in view.
    if (list.total > drawnTotal && drawnTotal > 0 && !list.isFollowing) viewport.scrollTop += (list.total - drawnTotal) * ROW_HEIGHT;
    if (list.total < drawnTotal || list.isFollowing) {
      if (list.isFollowing && viewport.scrollTop !== 0) viewport.scrollTop = 0;
    }
    drawnTotal = list.total;
    const height = viewport.clientHeight || 600;
    const top = viewport.scrollTop;
    if (last && last.list === list && last.selectedId === state.selectedId && last.top === top && last.height === height) return;
    last = { list, selectedId: state.selectedId, top, height };
    spacer.style.height = `${list.total * ROW_HEIGHT}px`;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const end = Math.min(list.total, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    // Rows already drawn are kept (by id and selection) and only moved: a scroll step makes few new elements.
    const kept = new Map<string, HTMLElement>();
    const rows: HTMLElement[] = [];
    for (let index = first; index < end; index++) {
      const row = rowAt(list, index);
      const key = row ? `${row.id}${row.id === state.selectedId ? ':selected' : ''}` : '';
      const node = (key && drawnRows.get(key)) || (row ? rowElement(row, row.id === state.selectedId) : el('div', { class: 'row loading' }, el('span', { class: 'c-gray' }, '…')));
      if (key) kept.set(key, node);
      const transform = `translateY(${index * ROW_HEIGHT}px)`;
      if (node.style.transform !== transform) node.style.transform = transform;
      rows.push(node);
    }
    drawnRows = kept;
    spacer.replaceChildren(...rows);
    setText(empty, list.error ? `${list.error.message} [${list.error.code}]` : list.total === 0 ? (list.filter ? `No call matches "${list.filter}".` : 'No calls yet. They appear here as they come.') : '');
    empty.hidden = empty.textContent === '';
    controller.loadRows(first, end);
  }

  return { element, draw };
}
