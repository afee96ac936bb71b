import type { CallRecord } from '../median/call-record.js';
import { keyLabel } from '../events/key-map.js';
import { childExitText } from '../events/child-exit.js';
import type { DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import type { CallEvent } from '../events/call-event.js';
import { OWNER_LABELS } from '../shared/endpoint-owner.js';
import { commandResult, inputEdited } from './command-results.js';
import { appendDevOutput, openDevOutput } from './dev-output.js';
import { applyHeld } from './held-approvals.js';
import { reduceKey } from './key-reducer.js';
import { buildFilteredView, extendFilteredView, recordMatches } from './record-filter.js';
import { RecordList } from './record-list.js';
import { keepHelpNote, keepSelectionIfShown, relayout, withFlash } from './selection.js';
import type { TuiAction, TuiResult } from './tui-actions.js';
import { footerHeightOf, recordIndexAtRow, rowCount, rowOfRecordIndex, type TuiState } from './tui-state.js';

export { initialState, layoutOf, selectedRecord, visibleRows } from './tui-state.js';
export type { TuiState, TuiOverlay, TuiLayout, VisibleRow, Flash, DaemonInfo } from './tui-state.js';
export type { TuiAction, TuiEffect, TuiKey, TuiResult } from './tui-actions.js';
export { formatRow } from './format-row.js';
export { formatDetail } from './format-detail.js';
export { formatHeader } from './format-chrome.js';

const none = (state: TuiState): TuiResult => ({ state, effects: [] });

/**
 * The whole TUI logic: state in, action in, new state and effects out. It
 * never mutates `state`, and the screen only draws what it returns.
 */
export function reduce(state: TuiState, action: TuiAction): TuiResult {
  const result = reduceAction(state, action);
  // A message that wraps makes the footer taller (or shorter again): the list's rows follow.
  if (result.state === state || footerHeightOf(result.state) === footerHeightOf(state)) return result;
  return { ...result, state: relayout(result.state) };
}

function reduceAction(state: TuiState, action: TuiAction): TuiResult {
  switch (action.type) {
    case 'key':
      return reduceKey(state, action.key);
    case 'snapshot':
      return none(applySnapshot(state, action.snapshot));
    case 'event':
      return none(keepHelpNote(state, applyEvent(state, action.event)));
    case 'resize':
      return none(relayout({ ...state, width: Math.max(1, Math.floor(action.width)), height: Math.max(1, Math.floor(action.height)) }));
    case 'command-result':
      return commandResult(state, action.command, action.ok ? { ok: true, result: action.result } : { ok: false, error: action.error });
    case 'input-edited':
      return inputEdited(state, action.record, action.text);
    case 'show-text':
      return none({ ...state, overlay: { kind: 'text', title: action.title, lines: action.text.split('\n'), scroll: 0 } });
    case 'flash':
      return none(withFlash(state, action.text, action.level ?? 'info'));
    default: {
      const never: never = action;
      return none(never);
    }
  }
}

/** Its last words say why: shown at once, unless the user is in the middle of something else. */
function devServerExited(state: TuiState): TuiState {
  const how = childExitText(state.daemon.child);
  const shown = state.overlay === null ? openDevOutput(state, `The dev server exited (${how}). Its last lines:`) : state;
  return withFlash(shown, `The dev server exited (${how}). ${keyLabel('dev-server-output')} shows its output, ${keyLabel('restart-dev-server')} restarts it.`, 'warn');
}

function applySnapshot(state: TuiState, snapshot: DaemonSnapshot): TuiState {
  const records = RecordList.from(snapshot.records, state.records.window);
  const selectedId = state.selection === 'follow' ? undefined : state.records.at(state.selection)?.id;
  const index = selectedId === undefined ? undefined : records.indexOf(selectedId);
  const filter = state.filter.view ? { ...state.filter, view: buildFilteredView(state.filter.view.filter, records) } : state.filter;
  const next: TuiState = {
    ...state,
    isDemo: state.isDemo || snapshot.isDemo,
    daemon: {
      ...state.daemon,
      hasSnapshot: true,
      version: snapshot.version,
      proxyUrl: snapshot.proxyUrl,
      tunnel: snapshot.tunnel,
      toolsUrl: snapshot.toolsUrl,
      inspectorUrl: snapshot.inspectorUrl ?? null,
      endpoint: snapshot.endpoint,
      heal: snapshot.heal ?? null,
      ...(snapshot.endpointBlocked ? { endpointBlocked: PRODUCTION_BLOCKED } : {}),
      child: snapshot.child,
      target: snapshot.target ?? null,
      keyFingerprint: snapshot.keyFingerprint,
      keySource: snapshot.keySource ?? null,
      devServerLog: snapshot.devServerLog ?? null,
    },
    devOutput: snapshot.devServerOutput ?? state.devOutput,
    records,
    callCount: Math.max(snapshot.callCount, records.length),
    filter,
    selection: index ?? 'follow',
    detailScroll: index === undefined ? 0 : state.detailScroll,
  };
  // A dev server that exited before this screen attached (the demo's route failing at once, `watch` attached later): said as if seen.
  const seen = snapshot.child.state === 'exited' && state.daemon.child.state !== 'exited' ? devServerExited(next) : next;
  return relayout(keepSelectionIfShown(applyHeld(seen, snapshot.emulatorApprovals ?? state.held, false)));
}

/** A record for a call event that came without one (only its summary is known). */
export function recordFromCallEvent(event: CallEvent): CallRecord {
  return {
    id: event.id,
    toolCallId: event.toolCallId,
    tool: event.tool,
    conversationId: null,
    risk: null,
    // The daemon's event may say the kind; otherwise a named tool means a tool call.
    kind: (event as { kind?: CallRecord['kind'] }).kind ?? (event.tool ? 'tool-call' : 'other'),
    receivedAt: event.at,
    durationMs: event.durationMs,
    request: { method: 'POST', path: '', headers: {}, body: '' },
    response: event.status === null ? null : { status: event.status, headers: {}, body: '' },
    signature: event.signature,
    verdict: { kind: event.verdict, agentSees: '', warnings: [] },
    replayOf: event.replayOf,
  };
}

/** A call arrived: append it (or update it; the oldest may drop off the window), keep the filter current, keep the view steady. */
function addRecord(state: TuiState, record: CallRecord): TuiState {
  const index = state.records.indexOf(record.id);
  const isNew = index === undefined;
  const records = state.records.upsert(record);
  const previous = state.filter.view;
  let view = previous;
  const isMatchChanged = previous && !isNew && recordMatches(state.records.at(index as number) as CallRecord, previous.filter) !== recordMatches(record, previous.filter);
  if (previous && isMatchChanged) view = buildFilteredView(previous.filter, records);
  else if (previous) view = extendFilteredView(previous, records);
  const next: TuiState = {
    ...state,
    records,
    // A repeat (the same outcome again, `repeats` > 0) is no new call, also when its record dropped off the window or
    // came before the snapshot: the daemon's count has it already.
    callCount: state.callCount + (isNew && !((record.repeats ?? 0) > 0) ? 1 : 0),
    filter: { ...state.filter, view },
  };
  // Rows added on top (the rows that drop off the window go from the bottom).
  const added = isMatchChanged ? rowCount(next) - rowCount(state) : rowsEver(next) - rowsEver(state);
  if (state.selection === 'follow') {
    // tail -f: the newest row is selected and on top.
    return relayout({ ...next, viewport: { ...next.viewport, top: 0 }, detailScroll: added > 0 ? 0 : next.detailScroll });
  }
  // The user moved away from the newest: keep the rows they look at where they are.
  const top = next.viewport.top + Math.max(0, added);
  return relayout(keepSelectionIfShown(keepSelectionInWindow(state, { ...next, viewport: { ...next.viewport, top } })));
}

/** Every row the list has had since its filter was set: kept rows and those that dropped off the window. */
function rowsEver(state: TuiState): number {
  return state.filter.view ? state.filter.view.matches.length : state.records.length;
}

/** A selected record that dropped off the window: the oldest kept row is selected instead. */
function keepSelectionInWindow(before: TuiState, after: TuiState): TuiState {
  if (after.selection === 'follow' || after.selection >= after.records.start || rowCount(after) === 0) return after;
  const wasShown = rowOfRecordIndex(before, after.selection) !== undefined;
  const oldest = recordIndexAtRow(after, rowCount(after) - 1);
  if (!wasShown || oldest === undefined) return after;
  return { ...after, selection: oldest, detailScroll: 0 };
}

function applyEvent(state: TuiState, event: DaemonEvent): TuiState {
  const daemon = state.daemon;
  switch (event.event) {
    case 'call':
      return addRecord(state, event.record ?? recordFromCallEvent(event));
    case 'proxy':
      return { ...state, daemon: { ...daemon, proxyUrl: event.url } };
    case 'tunnel': {
      const tunnel: TuiState['daemon']['tunnel'] = { state: event.state, url: event.url ?? daemon.tunnel.url };
      if (event.reason !== undefined) tunnel.reason = event.reason;
      const next = { ...state, daemon: { ...daemon, tunnel } };
      if (event.isHostnameChange) {
        const asked = event.requestedSubdomain ? ` (asked for "${event.requestedSubdomain}")` : '';
        return withFlash(next, `The tunnel hostname changed: now ${event.url ?? '?'}${asked}. median-dev fixes the endpoint.`, 'warn');
      }
      if (event.state === 'down') return withFlash(next, `The tunnel is down${event.reason ? `: ${event.reason}` : ''}. Reconnecting…`, 'warn');
      if (event.state === 'open' && daemon.tunnel.state !== 'open') return withFlash(next, `The tunnel is open: ${tunnel.url ?? '?'}`);
      return next;
    }
    case 'tools-url': {
      const next = { ...state, daemon: { ...daemon, toolsUrl: event.url } };
      return withFlash(next, `MEDIAN_TOOLS_URL=${event.url}${event.envFile ? ` (written to ${event.envFile})` : ''}`);
    }
    case 'endpoint':
      return applyEndpointEvent(state, event);
    case 'heal': {
      const heal = event.state === 'done' ? null : { state: event.state, url: event.url, startedAt: event.startedAt ?? (daemon.heal?.url === event.url ? daemon.heal.startedAt : event.at) };
      return { ...state, daemon: { ...daemon, heal } };
    }
    case 'local-only':
      return withFlash(state, event.message, 'warn');
    case 'child': {
      const child: TuiState['daemon']['child'] = { state: event.state };
      if (event.pid !== undefined) child.pid = event.pid;
      const command = event.command ?? daemon.child.command;
      if (command !== undefined) child.command = command;
      const next = { ...state, daemon: { ...daemon, child } };
      if (event.state !== 'exited') return next;
      child.code = event.code ?? null;
      child.signal = event.signal ?? null;
      return devServerExited(next);
    }
    case 'recording': {
      const next = { ...state, daemon: { ...daemon, recording: event.state } };
      return event.state === 'failing' ? withFlash(next, `Recording calls fails: ${event.message ?? 'unknown reason'}`, 'error') : next;
    }
    case 'log':
      return withFlash(state, event.message, event.level === 'warn' ? 'warn' : 'info');
    case 'key':
      return { ...state, daemon: { ...daemon, keyFingerprint: event.fingerprint, keySource: event.source } };
    case 'error': {
      // The production guard's stop stays in the header: no endpoint will appear until the key or the flag changes.
      const next = event.code === 'production_org' ? { ...state, daemon: { ...daemon, endpointBlocked: PRODUCTION_BLOCKED } } : state;
      return withFlash(next, `${event.message}${event.hint ? ` ${event.hint}` : ''}`, 'error');
    }
    case 'inspector':
      return { ...state, daemon: { ...daemon, inspectorUrl: event.url } };
    case 'target': {
      const next = { ...state, daemon: { ...daemon, target: { url: event.url, how: event.how, state: event.state } } };
      return event.message ? withFlash(next, event.message, event.how === 'remembered' || event.how === 'default' ? 'warn' : 'info') : next;
    }
    case 'output':
      return appendDevOutput(state, [event.line]);
    case 'emulator-approvals':
      return applyHeld(state, event.approvals, true);
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The header's endpoint text while the production guard keeps median-dev from connecting. */
const PRODUCTION_BLOCKED = 'not connected: this key’s organisation serves production (see doctor)';

const ENDPOINT_STATUS: Record<Extract<DaemonEvent, { event: 'endpoint' }>['action'], string | undefined> = {
  connected: 'pending',
  changed: 'pending',
  adopted: 'pending',
  synced: 'synced',
  waiting: 'waiting for the dev server',
  'sync-failed': 'failed',
  clash: 'failed',
  removed: undefined,
};

function applyEndpointEvent(state: TuiState, event: Extract<DaemonEvent, { event: 'endpoint' }>): TuiState {
  if (event.action === 'removed') {
    const endpoint = state.daemon.endpoint?.id === event.id ? null : state.daemon.endpoint;
    return withFlash({ ...state, daemon: { ...state.daemon, endpoint } }, `Removed the endpoint ${event.url}.`);
  }
  const status = ENDPOINT_STATUS[event.action] ?? 'pending';
  // Waiting is not an error: what the starting dev server answered goes in the flash, not the header's error.
  const endpoint = { id: event.id, url: event.url, status, error: event.action === 'waiting' ? null : (event.error ?? null) };
  const { endpointBlocked: _unblocked, ...daemon } = state.daemon;
  const next = { ...state, daemon: { ...daemon, endpoint } };
  if (event.action === 'clash') {
    const whose = event.otherUrl ? ` ${event.otherUrl} is ${event.otherOwner ? OWNER_LABELS[event.otherOwner] : 'no longer listed'}.` : '';
    return withFlash(next, `${event.error ?? 'Tool name clash.'}${whose}${event.fix ? ` Fix: ${event.fix}` : ''}`, 'error');
  }
  if (event.action === 'sync-failed') return withFlash(next, `Sync failed: ${event.error ?? 'unknown reason'}${event.fix ? ` Fix: ${event.fix}` : ''}`, 'error');
  if (event.action === 'synced') return withFlash(next, `Endpoint synced: ${event.tools?.length ?? 0} tools.`);
  if (event.action === 'waiting') return withFlash(next, `The dev server is still starting (${event.error ?? 'no answer'}): syncing again in a moment.`);
  return withFlash(next, `Endpoint ${event.action}: ${event.url}`);
}
