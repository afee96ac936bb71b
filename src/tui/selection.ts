import { detailLinesOf } from './format-detail.js';
import {
  layoutOfState,
  recordIndexAtRow,
  rowCount,
  rowOfRecordIndex,
  selectedRecord,
  selectedRow,
  viewportShowing,
  type Flash,
  type TuiState,
} from './tui-state.js';

export function withFlash(state: TuiState, text: string, level: Flash['level'] = 'info'): TuiState {
  return { ...state, flash: { text, level } };
}

/**
 * The help note (the demo's second-terminal command) stays in the footer
 * through the daemon's info notes, which the header repeats anyway, until a
 * key or a warning replaces it.
 */
export function keepHelpNote(before: TuiState, after: TuiState): TuiState {
  const isNoteShown = before.flash !== null && before.flash.text === before.helpNote;
  if (!isNoteShown || after.flash === before.flash || after.flash?.level !== 'info') return after;
  return { ...after, flash: before.flash };
}

/**
 * Selects a list row (clamped). Row 0, the newest, means `follow`: the
 * newest call stays selected as calls arrive, until the user moves away.
 */
export function selectRow(state: TuiState, row: number): TuiState {
  const count = rowCount(state);
  if (count === 0) return { ...state, selection: 'follow', viewport: { ...state.viewport, top: 0 } };
  const target = Math.max(0, Math.min(count - 1, row));
  const before = selectedRecord(state);
  const selection = target === 0 ? 'follow' : (recordIndexAtRow(state, target) as number);
  const next: TuiState = { ...state, selection };
  const isSameRecord = selectedRecord(next) === before;
  return { ...next, detailScroll: isSameRecord ? state.detailScroll : 0, viewport: viewportShowing(next, target) };
}

/** Keeps a record-index selection only if the list still shows that record. */
export function keepSelectionIfShown(state: TuiState): TuiState {
  if (state.selection === 'follow' || rowOfRecordIndex(state, state.selection) !== undefined) return state;
  return { ...state, selection: 'follow', detailScroll: 0 };
}

/** The largest detail scroll for the selected record at the current size. */
export function maxDetailScroll(state: TuiState): number {
  const record = selectedRecord(state);
  if (!record) return 0;
  const layout = layoutOfState(state);
  return Math.max(0, detailLinesOf(record, layout.innerWidth, state.pastable).length - layout.detailRows);
}

export function scrollDetail(state: TuiState, to: number): TuiState {
  const detailScroll = Math.max(0, Math.min(maxDetailScroll(state), to));
  return detailScroll === state.detailScroll ? state : { ...state, detailScroll };
}

/**
 * Recomputes what depends on size, focus and the list: the viewport's height
 * and position (the selected row stays in view; following pins the top) and
 * the detail scroll.
 */
export function relayout(state: TuiState): TuiState {
  const height = layoutOfState(state).listRows;
  const sized: TuiState = height === state.viewport.height ? state : { ...state, viewport: { ...state.viewport, height } };
  const pinned: TuiState = sized.selection === 'follow' && sized.viewport.top !== 0 ? { ...sized, viewport: { ...sized.viewport, top: 0 } } : sized;
  const viewport = viewportShowing(pinned, selectedRow(pinned));
  const placed = viewport === pinned.viewport ? pinned : { ...pinned, viewport };
  return placed.detailScroll === 0 ? placed : scrollDetail(placed, placed.detailScroll);
}
