import type { CallRow } from '../../events/inspector-api.js';
import { formatClock, formatDuration, isSlowCall, repeatMark, signatureMark, statusColor, toolText, verdictColor } from '../../presentation/index.js';
import { el, setText } from '../dom.js';

/** The TUI's columns and colours: time, tool, call id, HTTP, verdict, ms, signature, replay. */
export const COLUMN_TITLES = ['Time', 'Tool', 'Call id', 'HTTP', 'Verdict', 'ms', '✓', '↻'];

/**
 * One row of the list, made once and filled again as the list scrolls: a
 * scroll step changes the text of a few cells, never makes or drops elements.
 */
export interface RowNode {
  element: HTMLDivElement;
  /** What it shows now: the row's id (and selection), '…' for a row still loading, '' for nothing. */
  key: string;
  fill(row: CallRow | undefined, isSelected: boolean): void;
}

/** Sets a cell's text and class only where they changed (no style work for what stays). */
function put(cell: HTMLElement, text: string, className: string): void {
  if (cell.className !== className) cell.className = className;
  setText(cell, text);
}

export function createRowNode(): RowNode {
  const [time, tool, id, status, verdict, warn, ms, signature, replay] = Array.from({ length: 9 }, () => el('span', {}));
  const verdictCell = el('span', {}, verdict, warn);
  warn!.title = 'warnings';
  const element = el('div', { class: 'row', attrs: { role: 'row' } }, time, tool, id, status, verdictCell, ms, signature, replay);
  const node: RowNode = {
    element,
    key: '',
    fill(row, isSelected) {
      const key = row ? `${row.id}${isSelected ? ':selected' : ''}${row.repeats === undefined ? '' : `×${row.repeats}`}` : '…';
      if (key === node.key) return;
      node.key = key;
      if (!row) {
        element.className = 'row loading';
        delete element.dataset.id;
        delete element.dataset.verdict;
        for (const cell of [time, tool, id, status, verdict, warn, ms, signature, replay]) put(cell!, '', '');
        put(time!, '…', 'c-gray');
        return;
      }
      const isToolCall = row.kind === 'tool-call';
      const sig = signatureMark(row.signature);
      element.className = `row${isSelected ? ' selected' : ''}`;
      element.dataset.id = row.id;
      element.dataset.verdict = row.verdict;
      put(time!, formatClock(row.receivedAt), 'c-gray');
      // ×N: made again with the same outcome (a dead route opened again and again).
      put(tool!, `${toolText(row)}${repeatMark(row)}`, isToolCall ? 'tool' : 'c-gray');
      put(id!, row.toolCallId, 'c-gray mono');
      put(status!, row.status === null ? '—' : String(row.status), `c-${statusColor(row.status ?? undefined)}`);
      put(verdict!, row.didNotRun === undefined ? row.verdict : 'did-not-run', '');
      verdict!.title = row.didNotRun ?? '';
      verdictCell.className = `c-${verdictColor(row.verdict)}`;
      put(warn!, row.warningCount > 0 ? ' ⚠' : '', 'c-yellow');
      put(ms!, formatDuration(row.durationMs), `num${isSlowCall(row.durationMs) ? ' c-yellow' : ''}`);
      put(signature!, sig.text, `c-${sig.color}`);
      signature!.title = row.signature;
      put(replay!, row.replayOf ? '↻' : '', 'c-cyan');
      replay!.title = row.replayOf ? `replay of ${row.replayOf}` : '';
    },
  };
  return node;
}
