import { el, setText } from '../dom.js';
import type { Controller } from '../controller.js';
import { newSincePaused, rowAt, type InspectorState, type ListState } from '../state.js';
import { COLUMN_TITLES, createRowNode, type RowNode } from './row-cells.js';

/** Every row is this tall (styles.css `--row`): a row's place is its index times this, never measured. */
export const ROW_HEIGHT = 26;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 6;

/**
 * The call list, virtualised: a spacer as tall as every row, and a fixed pool
 * of row elements for the rows in view (plus a few), whatever the count. Row
 * i is drawn by pool slot i mod pool size, so a scroll step refills only the
 * slots whose row changed and moves them; nothing is made, dropped or
 * reordered. Scrolling reads only scrollTop (the height is kept from a
 * ResizeObserver) and draws once a frame. Newest on top; at the top it follows
 * new calls; scrolled down, the rows in view stay put as calls arrive above
 * them, and a button says how many came and goes back to the newest.
 */
export function createListView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const spacer = el('div', { class: 'spacer' });
  const viewport = el('div', { class: 'list-viewport', attrs: { role: 'grid', tabindex: '0' }, data: { testid: 'call-list' } }, spacer);
  const titles = el('div', { class: 'row titles' }, ...COLUMN_TITLES.map((title) => el('span', {}, title)));
  const empty = el('div', { class: 'empty' });
  const follow = el('button', { class: 'follow', data: { testid: 'follow' }, on: { click: () => (viewport.scrollTop = 0) } });
  const element = el('section', { class: 'list' }, titles, viewport, empty, follow);
  const pool: RowNode[] = [];
  /** Which row index each pool slot shows (-1: none). */
  const slotIndex: number[] = [];
  let height = 0;
  let scrollTop = 0;
  let drawnTotal = 0;
  let drawnFilter = '';
  let isFrameAsked = false;
  let last: { list: ListState; selectedId: string | null; top: number; height: number } | undefined;

  new ResizeObserver(() => {
    height = viewport.clientHeight;
    askFrame();
  }).observe(viewport);

  function askFrame(): void {
    if (isFrameAsked) return;
    isFrameAsked = true;
    requestAnimationFrame(() => {
      isFrameAsked = false;
      draw(controller.state());
    });
  }

  viewport.addEventListener(
    'scroll',
    () => {
      scrollTop = viewport.scrollTop;
      controller.dispatch({ type: 'list-scrolled', isAtTop: scrollTop < ROW_HEIGHT / 2 });
      askFrame();
    },
    { passive: true },
  );
  viewport.addEventListener('click', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('.row');
    if (row?.dataset.id) controller.select(row.dataset.id);
  });
  viewport.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const { list, selectedId } = controller.state();
    const at = slotIndex.find((index, slot) => index >= 0 && pool[slot]?.element.dataset.id === selectedId) ?? -1;
    const next = Math.max(0, Math.min(list.total - 1, at + (event.key === 'ArrowDown' ? 1 : -1)));
    const row = rowAt(list, next);
    if (!row) return;
    controller.select(row.id);
    if (next * ROW_HEIGHT < scrollTop) viewport.scrollTop = next * ROW_HEIGHT;
    else if ((next + 1) * ROW_HEIGHT > scrollTop + height) viewport.scrollTop = (next + 1) * ROW_HEIGHT - height;
  });

  /** Enough slots for the rows a viewport of this height shows, plus the overscan on both sides. */
  function growPool(size: number): void {
    while (pool.length < size) {
      const node = createRowNode();
      node.element.hidden = true;
      pool.push(node);
      slotIndex.push(-1);
      spacer.appendChild(node.element);
    }
  }

  /** Keeps the rows in view still while calls arrive above them; back at the top while following. */
  function keepPlace(list: ListState): void {
    const added = list.total - drawnTotal;
    if (list.filter === drawnFilter && added > 0 && drawnTotal > 0 && !list.isFollowing) {
      viewport.scrollTop = scrollTop + added * ROW_HEIGHT;
      scrollTop = viewport.scrollTop;
    } else if (list.isFollowing && scrollTop !== 0) {
      viewport.scrollTop = 0;
      scrollTop = 0;
    }
    drawnTotal = list.total;
    drawnFilter = list.filter;
  }

  function draw(state: InspectorState): void {
    const { list } = state;
    if (list.total !== drawnTotal || list.filter !== drawnFilter) {
      // The spacer first: a scrollTop past the old height would be cut short.
      spacer.style.height = `${list.total * ROW_HEIGHT}px`;
      keepPlace(list);
    }
    if (height === 0) height = viewport.clientHeight || 600;
    if (last && last.list === list && last.selectedId === state.selectedId && last.top === scrollTop && last.height === height) return;
    last = { list, selectedId: state.selectedId, top: scrollTop, height };

    const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
    const end = Math.min(list.total, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    growPool(Math.ceil(height / ROW_HEIGHT) + 2 * OVERSCAN + 1);
    const size = pool.length;
    for (let slot = 0; slot < size; slot++) {
      // The index this slot draws in [first, end), if any: the one congruent to slot mod size.
      const index = first + ((slot - (first % size) + size) % size);
      const node = pool[slot]!;
      if (index >= end) {
        if (slotIndex[slot] !== -1) {
          slotIndex[slot] = -1;
          node.element.hidden = true;
          node.fill(undefined, false);
          node.key = '';
        }
        continue;
      }
      const row = rowAt(list, index);
      node.fill(row, row !== undefined && row.id === state.selectedId);
      if (slotIndex[slot] !== index) {
        if (slotIndex[slot] === -1) node.element.hidden = false;
        slotIndex[slot] = index;
        node.element.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
      }
    }
    drawFollow(list);
    setText(empty, list.error ? `${list.error.message} [${list.error.code}]` : list.total === 0 ? (list.filter ? `No call matches "${list.filter}".` : 'No calls yet. They appear here as they come.') : '');
    empty.hidden = empty.textContent === '';
    controller.loadRows(first, end);
  }

  function drawFollow(list: ListState): void {
    const fresh = newSincePaused(list);
    const text = list.isFollowing
      ? '● following the newest calls'
      : `⏸ paused where you scrolled${fresh > 0 ? ` · ${fresh.toLocaleString('en')} new above` : ''} · ↑ back to the newest`;
    if (follow.textContent !== text) setText(follow, text);
    follow.classList.toggle('paused', !list.isFollowing);
  }

  return { element, draw };
}
