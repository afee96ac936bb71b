import type { CallRecord } from '../median/call-record.js';
import type { ControlCommand, DaemonSnapshot, EmulatorApproval, HealUnderWay } from '../events/daemon-events.js';
import { matchPosition, type FilteredView } from './record-filter.js';
import { RecordList, type RecordWindow } from './record-list.js';
import { truncate, wrapWords } from './styled-text.js';

/** What the header shows: the daemon's state, from the snapshot and events. */
export interface DaemonInfo {
  hasSnapshot: boolean;
  version: string | null;
  proxyUrl: string | null;
  tunnel: DaemonSnapshot['tunnel'];
  toolsUrl: string | null;
  /** The browser inspector, when the daemon serves it. */
  inspectorUrl?: string | null;
  endpoint: DaemonSnapshot['endpoint'];
  /** A heal under way: the header shows its state and target instead of the old endpoint's status. */
  heal?: HealUnderWay | null;
  child: DaemonSnapshot['child'];
  /** The dev server's origin as the proxy knows it, and whether it listens yet. */
  target?: DaemonSnapshot['target'];
  keyFingerprint: string | null;
  /** Where the key came from (`environment`, `.env`, …), when the daemon says. */
  keySource?: string | null;
  recording: 'ok' | 'failing';
  /** The file in the data dir with the dev server's whole output. */
  devServerLog?: string | null;
  /** Why median-dev connects no endpoint (the production guard stopped it), until an endpoint event. */
  endpointBlocked?: string;
}

export type ReplayCommand = Extract<ControlCommand, { command: 'replay' }>;

export type TuiOverlay =
  /** `scroll`: the first line shown, when the help is taller than the screen. */
  | { kind: 'help'; scroll: number }
  /** Risk `reviewed`/`high`: `y` sends `command` (with `confirmed: true`). */
  | { kind: 'confirm-replay'; command: ReplayCommand; record: CallRecord }
  /** Typing a filter: `filter.draft` holds the text. */
  | { kind: 'filter-input' }
  /** A text to read (the curl command): the movement keys scroll it, any other key closes it. */
  | { kind: 'text'; title: string; lines: string[]; scroll: number };

export interface PastableCommand {
  /** `median-dev`, or `node dist/src/cli/main.js` in a clone. */
  command: string;
  /** ` --data-dir … --env …` when they are not the defaults, else ''. */
  flags: string;
}

/** A printed command without a caller's context: `median-dev` and the default data dir and env file. */
export const DEFAULT_PASTABLE: PastableCommand = { command: 'median-dev', flags: '' };

/** The command line that runs `words` when pasted. */
export function pastableLine(pastable: PastableCommand, words: string): string {
  return `${pastable.command} ${words}${pastable.flags}`;
}

export interface Flash {
  text: string;
  level: 'info' | 'warn' | 'error';
}

export interface TuiState {
  isDemo: boolean;
  /** A line the `?` overlay ends with, and the footer shows first (the demo: the command for a second terminal). */
  helpNote: string | null;
  /** How a printed command is pasted into another terminal: how median-dev was run, and the flags it needs after the words. */
  pastable: PastableCommand;
  width: number;
  height: number;
  daemon: DaemonInfo;
  /** The dev server's last output lines, oldest first (`o` shows them; they open by themselves when it exits). */
  devOutput: string[];
  /** The newest records (a window: older ones drop off), oldest first (the list shows newest on top). */
  records: RecordList;
  /** Calls the daemon has recorded (may exceed the records the TUI holds). */
  callCount: number;
  filter: { draft: string; view: FilteredView | null };
  /** `follow`: the newest row stays selected (tail -f); else a record index. */
  selection: 'follow' | number;
  focus: 'list' | 'detail';
  /**
   * The detail was opened while following the newest call: it holds that
   * call (`selection` is its index) so the reader's call and what `r` acts on
   * do not change under them; closing it follows the newest again.
   */
  isFollowPaused: boolean;
  overlay: TuiOverlay | null;
  flash: Flash | null;
  /** `top`: the first list row drawn (row 0 = newest); `height`: rows drawn. */
  viewport: { top: number; height: number };
  detailScroll: number;
  /** Calls median-dev's emulator holds for a decision (never a real Median's), oldest first. */
  held: EmulatorApproval[];
  /** The held call the header shows and the approve/deny keys act on. */
  heldIndex: number;
}

export interface Box {
  top: number;
  height: number;
}

/** Where each part of the screen goes. The list and detail boxes have borders. */
export interface TuiLayout {
  header: Box;
  list: Box;
  detail: Box;
  footer: Box;
  /** Call rows the list shows (inside the border, under the column titles). */
  listRows: number;
  /** Lines the detail pane shows, and their width. */
  detailRows: number;
  innerWidth: number;
}

const HEADER_HEIGHT = 2;
/** Below this body height the list and detail share the screen by focus. */
const SPLIT_MIN_BODY = 14;

/** The most lines a wrapped footer message takes: 4 on an 80×24 screen, 1 on a very small one. */
function maxFooterLines(height: number): number {
  return Math.max(1, Math.min(4, Math.floor(height / 6)));
}

/**
 * The flash message as the footer shows it: wrapped, not cut, so the demo's
 * command for a second terminal can be copied whole (its lines end in ` \`,
 * so pasted they are still one command). Empty when the footer shows the
 * keys or the filter being typed.
 */
export function flashLines(state: Pick<TuiState, 'flash' | 'helpNote' | 'overlay' | 'width' | 'height'>): string[] {
  if (!state.flash || state.overlay?.kind === 'filter-input') return [];
  const isCommand = state.flash.text === state.helpNote;
  const lines = wrapWords(state.flash.text, state.width, isCommand ? { continuation: ' \\' } : {});
  const max = maxFooterLines(state.height);
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), truncate(lines.slice(max - 1).join(' '), state.width)];
}

/** The footer's height now: 1, or the lines of a wrapped message. */
export function footerHeightOf(state: Pick<TuiState, 'flash' | 'helpNote' | 'overlay' | 'width' | 'height'>): number {
  return Math.max(1, flashLines(state).length);
}

/** The layout for a state (its size, focus and footer; the list's line about older calls takes a row). */
export function layoutOfState(state: TuiState): TuiLayout {
  const layout = layoutOf(state.width, state.height, state.focus, footerHeightOf(state));
  return olderCallCount(state) > 0 && layout.listRows > 1 ? { ...layout, listRows: layout.listRows - 1 } : layout;
}

export function layoutOf(width: number, height: number, focus: TuiState['focus'], footerHeight = 1): TuiLayout {
  const footerLines = Math.max(1, Math.min(footerHeight, height - HEADER_HEIGHT));
  const body = Math.max(0, height - HEADER_HEIGHT - footerLines);
  let listHeight: number;
  if (body >= SPLIT_MIN_BODY) listHeight = Math.max(5, Math.round(body * 0.45));
  else listHeight = focus === 'list' ? body : 0;
  const detailHeight = body - listHeight;
  return {
    header: { top: 0, height: Math.min(HEADER_HEIGHT, height) },
    list: { top: HEADER_HEIGHT, height: listHeight },
    detail: { top: HEADER_HEIGHT + listHeight, height: detailHeight },
    footer: { top: Math.max(0, height - footerLines), height: height > 0 ? footerLines : 0 },
    listRows: Math.max(0, listHeight - 3),
    detailRows: Math.max(0, detailHeight - 2),
    innerWidth: Math.max(0, width - 2),
  };
}

export function initialState(options: {
  isDemo?: boolean;
  helpNote?: string | undefined;
  pastable?: PastableCommand | undefined;
  recordWindow?: RecordWindow | undefined;
  width: number;
  height: number;
}): TuiState {
  const width = Math.max(1, Math.floor(options.width));
  const height = Math.max(1, Math.floor(options.height));
  const flash: Flash | null = options.helpNote ? { text: options.helpNote, level: 'info' } : null;
  const footerHeight = footerHeightOf({ flash, helpNote: options.helpNote ?? null, overlay: null, width, height });
  return {
    isDemo: options.isDemo ?? false,
    helpNote: options.helpNote ?? null,
    pastable: options.pastable ?? DEFAULT_PASTABLE,
    width,
    height,
    daemon: {
      hasSnapshot: false,
      version: null,
      proxyUrl: null,
      tunnel: { state: 'connecting', url: null },
      toolsUrl: null,
      inspectorUrl: null,
      endpoint: null,
      child: { state: 'none' },
      keyFingerprint: null,
      recording: 'ok',
    },
    devOutput: [],
    records: RecordList.empty(options.recordWindow),
    callCount: 0,
    filter: { draft: '', view: null },
    selection: 'follow',
    focus: 'list',
    isFollowPaused: false,
    overlay: null,
    flash,
    viewport: { top: 0, height: layoutOf(width, height, 'list', footerHeight).listRows },
    detailScroll: 0,
    held: [],
    heldIndex: 0,
  };
}

/** Rows the list has (the kept records, or those of them the filter lets through). */
export function rowCount(state: TuiState): number {
  return state.filter.view ? state.filter.view.matches.size : state.records.size;
}

/** Calls not in the list: dropped off its window, or recorded before the TUI's snapshot. */
export function olderCallCount(state: TuiState): number {
  return Math.max(0, state.callCount - state.records.size);
}

/** The record index shown on a list row (row 0 = newest). Indices are absolute: a dropped row never shifts the others. */
export function recordIndexAtRow(state: TuiState, row: number): number | undefined {
  if (row < 0 || row >= rowCount(state)) return undefined;
  return state.filter.view ? state.filter.view.matches.at(state.filter.view.matches.length - 1 - row) : state.records.length - 1 - row;
}

/** The list row a record index is on, or undefined when the filter hides it or it dropped off the window. */
export function rowOfRecordIndex(state: TuiState, index: number): number | undefined {
  if (state.filter.view) {
    const position = matchPosition(state.filter.view, index);
    return position === undefined ? undefined : state.filter.view.matches.length - 1 - position;
  }
  return index >= state.records.start && index < state.records.length ? state.records.length - 1 - index : undefined;
}

/** The selected row, or undefined when the list is empty. */
export function selectedRow(state: TuiState): number | undefined {
  if (rowCount(state) === 0) return undefined;
  if (state.selection === 'follow') return 0;
  return rowOfRecordIndex(state, state.selection) ?? 0;
}

export function selectedRecord(state: TuiState): CallRecord | undefined {
  const row = selectedRow(state);
  if (row === undefined) return undefined;
  const index = recordIndexAtRow(state, row);
  return index === undefined ? undefined : state.records.at(index);
}

export interface VisibleRow {
  record: CallRecord;
  isSelected: boolean;
}

/** Only the rows inside the viewport: O(viewport height), whatever the record count. */
export function visibleRows(state: TuiState): VisibleRow[] {
  const selected = selectedRow(state);
  const end = Math.min(rowCount(state), state.viewport.top + state.viewport.height);
  const rows: VisibleRow[] = [];
  for (let row = state.viewport.top; row < end; row++) {
    const index = recordIndexAtRow(state, row);
    const record = index === undefined ? undefined : state.records.at(index);
    if (record) rows.push({ record, isSelected: row === selected });
  }
  return rows;
}

/** A viewport that shows `row` (scrolling as little as possible) and stays in range. */
export function viewportShowing(state: TuiState, row: number | undefined): TuiState['viewport'] {
  const { height } = state.viewport;
  const maxTop = Math.max(0, rowCount(state) - height);
  let top = Math.min(state.viewport.top, maxTop);
  if (row !== undefined && height > 0) {
    if (row < top) top = row;
    else if (row >= top + height) top = row - height + 1;
  }
  top = Math.max(0, Math.min(top, maxTop));
  return top === state.viewport.top ? state.viewport : { top, height };
}

/** The emulator's held call the approve/deny keys act on, if any. */
export function selectedHeld(state: Pick<TuiState, 'held' | 'heldIndex'>): EmulatorApproval | undefined {
  return state.held[Math.min(state.heldIndex, state.held.length - 1)];
}
