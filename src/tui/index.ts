// src/tui: the terminal UI for live tool calls (state, reducer, frames, a blessed screen).
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export {
  reduce,
  initialState,
  visibleRows,
  selectedRecord,
  layoutOf,
  formatRow,
  formatDetail,
  formatHeader,
  recordFromCallEvent,
  type TuiState,
  type TuiOverlay,
  type TuiLayout,
  type VisibleRow,
  type Flash,
  type DaemonInfo,
  type TuiAction,
  type TuiEffect,
  type TuiKey,
  type TuiResult,
} from './view-model.js';
export type { PastableCommand } from './tui-state.js';
export { parseFilter, recordMatches, type RecordFilter } from './record-filter.js';
export { formatCurl } from './curl-command.js';
export { columnTitles, formatRowSegments } from './format-row.js';
export type { Segment, StyledLine } from './styled-text.js';
export { editableInputOf } from './format-detail.js';
export { startTui, type Tui, type TuiOptions } from './start-tui.js';
export { DEFAULT_RECORD_WINDOW, type RecordWindow } from './record-list.js';
export { attachTuiToControl, type TuiControlClient, type AttachTuiOptions, type AttachedTui } from './attach-to-control.js';
export { restoreTerminal, TERMINAL_RESTORE_SEQUENCE } from './terminal-restore.js';
