import type { CallRow } from '../../events/inspector-api.js';
import { formatClock, formatDuration, statusColor, verdictColor } from '../../tui/format-row.js';
import { el } from '../dom.js';

/** The TUI's columns and colours: time, tool, call id, HTTP, verdict, ms, signature, replay. */
export const COLUMN_TITLES = ['Time', 'Tool', 'Call id', 'HTTP', 'Verdict', 'ms', '✓', '↻'];

export function rowElement(row: CallRow, isSelected: boolean): HTMLDivElement {
  const isToolCall = row.kind === 'tool-call';
  const signature = row.signature === 'valid' ? ['✓', 'green'] : row.signature === 'unchecked' ? ['·', 'gray'] : ['✗', 'red'];
  return el(
    'div',
    { class: `row${isSelected ? ' selected' : ''}`, data: { id: row.id, verdict: row.verdict }, attrs: { role: 'row' } },
    el('span', { class: 'c-gray' }, formatClock(row.receivedAt)),
    el('span', { class: isToolCall ? 'tool' : 'c-gray' }, isToolCall ? (row.tool ?? '?') : `(${row.kind})`),
    el('span', { class: 'c-gray mono' }, row.toolCallId),
    el('span', { class: `c-${statusColor(row.status ?? undefined)}` }, row.status === null ? '—' : String(row.status)),
    el('span', { class: `c-${verdictColor(row.verdict)}` }, row.verdict, row.warningCount > 0 ? el('span', { class: 'c-yellow', title: 'warnings' }, ' ⚠') : null),
    el('span', { class: `num${(row.durationMs ?? 0) >= 8000 ? ' c-yellow' : ''}` }, formatDuration(row.durationMs)),
    el('span', { class: `c-${signature[1]}`, title: row.signature }, signature[0]!),
    el('span', { class: 'c-cyan', title: row.replayOf ? `replay of ${row.replayOf}` : '' }, row.replayOf ? '↻' : ''),
  );
}
