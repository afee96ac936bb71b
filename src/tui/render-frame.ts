import { keyLabel } from '../events/key-map.js';
import { footerLines, headerLines } from './format-chrome.js';
import { overlayView } from './overlay-view.js';
import { detailLinesOf } from './format-detail.js';
import { columnTitles, formatRowSegments } from './format-row.js';
import { fitLine, invert, seg, type StyledLine } from './styled-text.js';
import { layoutOfState, olderCallCount, pastableLine, rowCount, selectedRecord, visibleRows, type TuiState } from './tui-state.js';

export type PanelName = 'header' | 'list' | 'detail' | 'footer';

export interface Panel {
  name: PanelName;
  top: number;
  height: number;
  /** Drawn with a line border (list and detail); `lines` fit inside it. */
  hasBorder: boolean;
  label?: string;
  isFocused: boolean;
  lines: StyledLine[];
}

export interface OverlayPanel {
  title: string;
  width: number;
  height: number;
  lines: StyledLine[];
}

/** Everything on screen, as data: what the adapter draws, cell for cell. */
export interface Frame {
  width: number;
  height: number;
  panels: Panel[];
  overlay: OverlayPanel | null;
}

function emptyListLines(state: TuiState, width: number): StyledLine[] {
  if (state.filter.view) {
    return [fitLine([seg(`No call matches "${state.filter.view.filter.text}". Esc clears the filter.`, 'gray')], width)];
  }
  const where = state.daemon.toolsUrl ? ` to ${state.daemon.toolsUrl}` : '';
  return [fitLine([seg(`Waiting for calls… Median's calls${where} show up here.`, 'gray')], width)];
}

function listPanel(state: TuiState, top: number, height: number, width: number): Panel {
  const lines: StyledLine[] = [columnTitles(width)];
  const older = olderCallCount(state);
  // Said once, on top: the list keeps a recent window, the store has every call.
  if (older > 0 && height - 3 > 1) lines.push(fitLine([seg(`${older.toLocaleString('en')} older call${older === 1 ? '' : 's'}: ${pastableLine(state.pastable, 'calls')}`, 'gray')], width));
  const rows = visibleRows(state);
  for (const row of rows) {
    const line = formatRowSegments(row.record, width);
    lines.push(row.isSelected ? invert(line) : line);
  }
  if (rows.length === 0 && height > 3) lines.push(...emptyListLines(state, width));
  const count = rowCount(state);
  let label = ` Calls ${count === 0 ? '' : `${Math.min(count, state.viewport.top + 1)}–${Math.min(count, state.viewport.top + state.viewport.height)} of ${count} `}`;
  if (state.selection === 'follow') label += '· following newest ';
  else if (state.isFollowPaused) label += `· held while the detail is open (${keyLabel('back')}: follow) `;
  else if (state.viewport.top > 0) label += `· ▲ ${state.viewport.top} newer (g: follow) `;
  return { name: 'list', top, height, hasBorder: true, label, isFocused: state.focus === 'list', lines };
}

function detailPanel(state: TuiState, top: number, height: number, width: number, rows: number): Panel {
  const record = selectedRecord(state);
  const panel: Panel = { name: 'detail', top, height, hasBorder: true, label: ' Detail ', isFocused: state.focus === 'detail', lines: [] };
  if (!record) return panel;
  const all = detailLinesOf(record, width, state.pastable);
  panel.lines = all.slice(state.detailScroll, state.detailScroll + rows).map((line) => fitLine(line, width));
  if (all.length > rows) {
    panel.label = ` Detail ${state.detailScroll + 1}–${Math.min(all.length, state.detailScroll + rows)} of ${all.length} lines ${state.focus === 'detail' ? '' : '(⏎ to scroll) '}`;
  }
  // New calls keep arriving: say that this one stays until the detail is closed.
  if (state.isFollowPaused) panel.label += `· held (${keyLabel('back')}: follow newest) `;
  return panel;
}

function overlayPanel(state: TuiState): OverlayPanel | null {
  const view = overlayView(state);
  return view ? { title: view.title, width: view.width, height: view.height, lines: view.lines } : null;
}

/** The frame for a state: only the rows in the viewport and the detail lines in view. */
export function renderFrame(state: TuiState): Frame {
  const layout = layoutOfState(state);
  const inner = layout.innerWidth;
  const panels: Panel[] = [
    { name: 'header', top: layout.header.top, height: layout.header.height, hasBorder: false, isFocused: false, lines: headerLines(state).map((line) => fitLine(line, state.width)) },
  ];
  if (layout.list.height > 0) panels.push(listPanel(state, layout.list.top, layout.list.height, inner));
  if (layout.detail.height > 0) panels.push(detailPanel(state, layout.detail.top, layout.detail.height, inner, layout.detailRows));
  panels.push({ name: 'footer', top: layout.footer.top, height: layout.footer.height, hasBorder: false, isFocused: false, lines: footerLines(state).map((line) => fitLine(line, state.width)) });
  return { width: state.width, height: state.height, panels, overlay: overlayPanel(state) };
}
