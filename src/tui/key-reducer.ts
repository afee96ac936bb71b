import { unsignedOriginalReason } from '../median/unsigned-original.js';
import type { CallRecord } from '../median/call-record.js';
import { actionOfKey, keyLabel } from '../events/key-map.js';
import { formatCurl } from './curl-command.js';
import { openDevOutput } from './dev-output.js';
import { overlayView } from './overlay-view.js';
import { heldKey } from './held-approvals.js';
import { editableInputOf } from './format-detail.js';
import { buildFilteredView, parseFilter } from './record-filter.js';
import { keepSelectionIfShown, relayout, scrollDetail, selectRow, withFlash } from './selection.js';
import type { TuiEffect, TuiKey, TuiResult } from './tui-actions.js';
import { layoutOfState, recordIndexAtRow, rowCount, selectedRecord, selectedRow, type ReplayCommand, type TuiState } from './tui-state.js';

const none = (state: TuiState): TuiResult => ({ state, effects: [] });
const withEffect = (state: TuiState, effect: TuiEffect): TuiResult => ({ state, effects: [effect] });

/** Risk `reviewed`/`high` re-runs something a person approved, an original not validly signed may be forged: ask first. */
export function needsConfirmation(record: CallRecord): boolean {
  return record.risk === 'reviewed' || record.risk === 'high' || unsignedOriginalReason(record) !== undefined;
}

function callLabel(record: CallRecord, command: ReplayCommand): string {
  return `${record.tool ?? 'call'} (${command.newId ? 'new id' : record.toolCallId})`;
}

/** Sends a replay, or asks first when the record's risk needs a yes. */
export function requestReplay(state: TuiState, record: CallRecord, command: ReplayCommand): TuiResult {
  if (needsConfirmation(record) && command.confirmed !== true) {
    return none({ ...state, overlay: { kind: 'confirm-replay', command, record } });
  }
  return withEffect(withFlash(state, `↻ Replaying ${callLabel(record, command)}…`), { type: 'send', command });
}

function replayable(state: TuiState): { record: CallRecord } | { problem: TuiResult } {
  const record = selectedRecord(state);
  if (!record) return { problem: none(withFlash(state, 'No call selected yet.', 'warn')) };
  if (record.kind !== 'tool-call' || record.toolCallId === '') {
    return { problem: none(withFlash(state, `Only tool calls can be replayed; this is a ${record.kind} request.`, 'warn')) };
  }
  return { record };
}

function replayKey(state: TuiState, isNewId: boolean): TuiResult {
  const found = replayable(state);
  if ('problem' in found) return found.problem;
  // The call the agent made: a replay row replays the original it repeats (by record id, never a chain).
  const command: ReplayCommand = { command: 'replay', toolCallId: found.record.replayOf ?? found.record.id };
  if (isNewId) command.newId = true;
  return requestReplay(state, found.record, command);
}

function editKey(state: TuiState): TuiResult {
  const found = replayable(state);
  if ('problem' in found) return found.problem;
  if (editableInputOf(found.record) === undefined) return none(withFlash(state, 'This call has no input to edit.', 'warn'));
  return withEffect(state, { type: 'edit-input', record: found.record });
}

export function applyFilter(state: TuiState, text: string): TuiState {
  const filter = parseFilter(text);
  const view = filter ? buildFilteredView(filter, state.records) : null;
  const filtered = keepSelectionIfShown({ ...state, overlay: null, filter: { draft: filter?.text ?? '', view } });
  const next = relayout({ ...filtered, viewport: { ...filtered.viewport, top: filtered.selection === 'follow' ? 0 : filtered.viewport.top } });
  if (!view) return withFlash(next, state.filter.view ? 'Filter cleared.' : 'No filter.');
  const shown = rowCount(next);
  return withFlash(next, `Filter "${view.filter.text}": ${shown} of ${state.records.size} calls.`, shown === 0 ? 'warn' : 'info');
}

function filterInputKey(state: TuiState, key: TuiKey): TuiResult {
  switch (key) {
    case 'enter':
      return none(applyFilter(state, state.filter.draft));
    case 'escape':
      return none(applyFilter(state, ''));
    case 'backspace':
      return none({ ...state, filter: { ...state.filter, draft: state.filter.draft.slice(0, -1) } });
    case 'C-u':
      return none({ ...state, filter: { ...state.filter, draft: '' } });
    default:
      if (key.length === 1 && key >= ' ') return none({ ...state, filter: { ...state.filter, draft: state.filter.draft + key } });
      return none(state);
  }
}

function confirmKey(state: TuiState, key: TuiKey): TuiResult {
  const overlay = state.overlay;
  if (overlay?.kind !== 'confirm-replay') return none(state);
  if (key === 'y' || key === 'Y') {
    const isUnsigned = unsignedOriginalReason(overlay.record) !== undefined;
    return requestReplay({ ...state, overlay: null }, overlay.record, { ...overlay.command, confirmed: true, ...(isUnsigned ? { allowUnsignedOriginal: true } : {}) });
  }
  if (key === 'n' || key === 'N' || key === 'escape' || key === 'q') {
    return none(withFlash({ ...state, overlay: null }, 'Replay cancelled: nothing sent.'));
  }
  return none(state);
}

/**
 * Opening the detail while following pins the call it shows (new calls no
 * longer replace it, and `r` acts on it); closing it follows the newest again.
 */
function focus(state: TuiState, to: TuiState['focus']): TuiState {
  if (to === state.focus) return state;
  if (to === 'detail') {
    const row = selectedRow(state);
    const index = state.selection === 'follow' && row !== undefined ? recordIndexAtRow(state, row) : undefined;
    const pinned = index === undefined ? state : { ...state, selection: index, isFollowPaused: true };
    return relayout({ ...pinned, focus: to, detailScroll: 0 });
  }
  const resumed = state.isFollowPaused ? { ...state, selection: 'follow' as const, isFollowPaused: false } : state;
  return relayout({ ...resumed, focus: to, detailScroll: 0 });
}

/** Movement in the list: rows, pages, newest (follow) and oldest. */
function listMove(state: TuiState, key: TuiKey): TuiState | undefined {
  const row = selectedRow(state) ?? 0;
  const page = Math.max(1, state.viewport.height - 1);
  switch (actionOfKey(key)) {
    case 'select-newer':
      return selectRow(state, row - 1);
    case 'select-older':
      return selectRow(state, row + 1);
    case 'page-newer':
      return selectRow(state, row - page);
    case 'page-older':
      return selectRow(state, row + page);
    case 'select-newest':
      return selectRow(state, 0);
    case 'select-oldest':
      return selectRow(state, rowCount(state) - 1);
    default:
      return undefined;
  }
}

/** Scrolling in the detail pane. */
function detailMove(state: TuiState, key: TuiKey): TuiState | undefined {
  const page = Math.max(1, layoutOfState(state).detailRows - 1);
  switch (actionOfKey(key)) {
    case 'select-newer':
      return scrollDetail(state, state.detailScroll - 1);
    case 'select-older':
      return scrollDetail(state, state.detailScroll + 1);
    case 'page-newer':
      return scrollDetail(state, state.detailScroll - page);
    case 'page-older':
      return scrollDetail(state, state.detailScroll + page);
    case 'select-newest':
      return scrollDetail(state, 0);
    case 'select-oldest':
      return scrollDetail(state, Number.MAX_SAFE_INTEGER);
    default:
      return undefined;
  }
}

/** The movement keys scroll a help or text box taller than the screen; undefined for any other key (it closes the box). */
function scrollOverlay(state: TuiState, key: TuiKey): TuiState | undefined {
  const overlay = state.overlay;
  const view = overlayView(state);
  if ((overlay?.kind !== 'help' && overlay?.kind !== 'text') || !view || view.maxScroll === 0) return undefined;
  const page = Math.max(1, view.rows - 1);
  const targets: Partial<Record<string, number>> = {
    'select-newer': overlay.scroll - 1,
    'select-older': overlay.scroll + 1,
    'page-newer': overlay.scroll - page,
    'page-older': overlay.scroll + page,
    'select-newest': 0,
    'select-oldest': view.maxScroll,
  };
  const target = targets[actionOfKey(key) ?? ''];
  if (target === undefined) return undefined;
  return { ...state, overlay: { ...overlay, scroll: Math.max(0, Math.min(view.maxScroll, target)) } };
}

/** Keys that act the same in the list and the detail pane (KEY_MAP says which key is which). */
function commandKey(state: TuiState, key: TuiKey): TuiResult {
  const action = actionOfKey(key);
  switch (action) {
    case 'toggle-detail':
      return none(focus(state, state.focus === 'list' ? 'detail' : 'list'));
    case 'back':
      if (state.focus === 'detail') return none(focus(state, 'list'));
      return none(state.filter.view ? applyFilter(state, '') : state);
    case 'replay':
      return replayKey(state, false);
    case 'replay-new-id':
      return replayKey(state, true);
    case 'edit-replay':
      return editKey(state);
    case 'filter':
      return none({ ...state, overlay: { kind: 'filter-input' }, filter: { ...state.filter, draft: state.filter.view?.filter.text ?? '' } });
    case 'copy-curl': {
      const record = selectedRecord(state);
      if (!record) return none(withFlash(state, 'No call selected yet.', 'warn'));
      return withEffect(state, { type: 'copy-curl', record, text: formatCurl(record, state.daemon.proxyUrl) });
    }
    case 'export-har':
      return withEffect(withFlash(state, 'Exporting the calls as HAR…'), { type: 'export-har' });
    case 'save-call': {
      const record = selectedRecord(state);
      if (!record) return none(withFlash(state, 'No call selected yet.', 'warn'));
      if (record.kind !== 'tool-call') return none(withFlash(state, 'Only a tool call can be saved as a test.', 'warn'));
      return withEffect(withFlash(state, 'Saving the call as a test…'), { type: 'save-call', record });
    }
    case 'sync':
      return withEffect(withFlash(state, 'Asking Median to sync the endpoint…'), { type: 'send', command: { command: 'sync' } });
    case 'diagnostics':
      return withEffect(withFlash(state, 'Sending a diagnostics call…'), { type: 'send', command: { command: 'diagnostics' } });
    case 'restart-dev-server':
      return withEffect(withFlash(state, 'Restarting the dev server…'), { type: 'send', command: { command: 'restart-child' } });
    case 'hostname-change':
      if (!state.isDemo) return none(withFlash(state, `\`${keyLabel('hostname-change')}\` simulates a hostname change in \`median-dev demo\` only.`, 'warn'));
      return withEffect(withFlash(state, 'Simulating a tunnel hostname change…'), {
        type: 'send',
        command: { command: 'simulate-hostname-change' },
      });
    case 'help':
      return none({ ...state, overlay: { kind: 'help', scroll: 0 } });
    case 'dev-server-output':
      return none(openDevOutput(state));
    case 'quit':
      return withEffect(withFlash(state, 'Quitting…'), { type: 'quit' });
    case 'approve-held':
    case 'deny-held':
    case 'next-held':
      return heldKey(state, action);
    case 'select-newer':
    case 'select-older':
    case 'page-newer':
    case 'page-older':
    case 'select-newest':
    case 'select-oldest':
    case undefined:
      return none(state);
    default: {
      const never: never = action;
      return never;
    }
  }
}

export function reduceKey(previous: TuiState, key: TuiKey): TuiResult {
  if (key === 'C-c') return withEffect({ ...previous, overlay: null, flash: { text: 'Quitting…', level: 'info' } }, { type: 'quit' });
  const state = previous.flash ? { ...previous, flash: null } : previous;
  switch (state.overlay?.kind) {
    case 'help':
    case 'text':
      return none(scrollOverlay(state, key) ?? { ...state, overlay: null });
    case 'confirm-replay':
      return confirmKey(state, key);
    case 'filter-input':
      return filterInputKey(state, key);
    default: {
      const moved = state.focus === 'detail' ? detailMove(state, key) : listMove(state, key);
      return moved ? none(moved) : commandKey(state, key);
    }
  }
}
