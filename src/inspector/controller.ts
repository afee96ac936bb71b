import type { CallRecord } from '../median/call-record.js';
import { unsignedOriginalReason } from '../median/unsigned-original.js';
import type { CallRow, LiveMessage } from '../events/inspector-api.js';
import { ApiFailure, api, session } from './api-client.js';
import { saveFile } from './dom.js';
import { describeDecision } from '../presentation/index.js';
import { connectLive } from './live-client.js';
import { reduce, type InspectorAction } from './reducer.js';
import { firstMissing, initialState, needsConfirmation, type InspectorState } from './state.js';

/** Rows one page request asks for. */
export const PAGE_SIZE = 100;

export interface Controller {
  state(): InspectorState;
  dispatch(action: InspectorAction): void;
  boot(): Promise<void>;
  /** Makes sure rows [from, to) (0 = newest) are loaded. */
  loadRows(from: number, to: number): void;
  applyFilter(): void;
  select(id: string): void;
  copyCurl(id: string): Promise<void>;
  /** The filtered list's HAR, saved as a file. */
  downloadHar(): Promise<void>;
  /** Saves the call as a test (median-calls/) and says where. */
  saveCall(id: string): Promise<void>;
  /** Approves or denies a call median-dev's emulator holds, and says what it did. */
  decideHeld(id: string, decision: 'approve' | 'deny'): Promise<void>;
  openReplay(record: CallRecord, options?: { isNewId?: boolean; sendNow?: boolean }): void;
  /** Send: asks for the confirmation first where the risk needs one. */
  sendReplay(): void;
  confirmReplay(): void;
}

function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof ApiFailure) return { code: error.code, message: error.message };
  return { code: 'network_error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The page's effects: requests to the daemon's API and the live channel,
 * each turned into an action. Views call these; they hold no logic.
 */
export function createController(onChange: (state: InspectorState) => void): Controller {
  let state = initialState();
  const inFlight = new Set<string>();
  let headReload: ReturnType<typeof setTimeout> | undefined;
  /** The last calls the live channel brought, filter or not: a replay's row may come before its answer. */
  const recentRows: CallRow[] = [];

  function dispatch(action: InspectorAction): void {
    const next = reduce(state, action);
    if (next === state) return;
    state = next;
    onChange(state);
  }

  function loadPage(offset: number): void {
    const { generation, filter } = state.list;
    const key = `${generation}:${offset}`;
    if (inFlight.has(key)) return;
    inFlight.add(key);
    api
      .calls(offset, PAGE_SIZE, filter)
      .then((page) => dispatch({ type: 'page-loaded', page, generation, keepNear: offset }))
      .catch((error: unknown) => dispatch({ type: 'page-failed', error: errorOf(error), generation }))
      .finally(() => inFlight.delete(key));
  }

  function reloadHeadSoon(): void {
    clearTimeout(headReload);
    headReload = setTimeout(() => loadPage(0), 150);
  }

  async function openDiff(replayRecordId: string, originalId: string): Promise<void> {
    try {
      const [original, replay] = await Promise.all([api.record(originalId), api.record(replayRecordId)]);
      dispatch({ type: 'diff-opened', original, replay });
    } catch (error) {
      dispatch({ type: 'flash', text: `The diff could not be loaded: ${errorOf(error).message}`, level: 'error' });
    }
  }

  function onLive(message: LiveMessage): void {
    switch (message.type) {
      case 'hello':
        dispatch({ type: 'status-received', status: message.status });
        // Calls may have come while the channel was down: read the top again.
        loadPage(0);
        break;
      case 'status':
        dispatch({ type: 'status-received', status: message.status });
        break;
      case 'call': {
        recentRows.push(message.row);
        if (recentRows.length > 100) recentRows.shift();
        dispatch({ type: 'call-arrived', row: message.row });
        if (state.list.filter !== '') reloadHeadSoon();
        const awaited = state.awaitingReplay;
        if (awaited && message.row.replayOf === awaited.replayOf && message.row.toolCallId === awaited.toolCallId) {
          void openDiff(message.row.id, awaited.replayOf);
        }
        break;
      }
      case 'cleared':
        break;
      default: {
        const never: never = message;
        void never;
      }
    }
  }

  async function send(confirmed: boolean): Promise<void> {
    const replay = state.replay;
    if (!replay || replay.problem !== null || replay.refusal) return;
    dispatch({ type: 'replay-sending' });
    try {
      const answer = await api.replay({
        id: replay.record.id,
        input: JSON.parse(replay.draft) as unknown,
        ...(replay.isNewId ? { newId: true } : {}),
        ...(replay.atOffsetMs !== 0 ? { atOffsetMs: replay.atOffsetMs } : {}),
        ...(confirmed ? { confirmed: true } : {}),
        // Confirmed after the confirm said the original was not validly signed.
        ...(confirmed && unsignedOriginalReason(replay.record) !== undefined ? { allowUnsignedOriginal: true } : {}),
      });
      dispatch({ type: 'replay-answered', answer });
      // The row may have arrived before the answer did.
      const known = recentRows.find((row) => row.toolCallId === answer.toolCallId && row.replayOf === answer.replayOf);
      if (known) void openDiff(known.id, answer.replayOf);
    } catch (error) {
      dispatch({ type: 'replay-failed', error: errorOf(error) });
    }
  }

  async function loadTools(): Promise<void> {
    try {
      dispatch({ type: 'tools-loaded', tools: await api.tools() });
    } catch (error) {
      dispatch({ type: 'tools-loaded', tools: { tools: null, readAt: null, error: errorOf(error) } });
    }
  }

  return {
    state: () => state,
    dispatch,
    async boot() {
      // Opened with the one-time link: take the token off the address bar (and out of the history), spend it.
      const token = location.pathname === '/session' ? new URLSearchParams(location.search).get('token') : null;
      if (location.pathname === '/session') history.replaceState(null, '', '/');
      if (token !== null) {
        try {
          session.keep((await api.exchange(token)).session);
        } catch {
          // A spent or unknown link: a session this tab already has still counts (checked below).
        }
      }
      try {
        await api.session();
        dispatch({ type: 'session-checked', isOk: true });
      } catch {
        session.forget();
        dispatch({ type: 'session-checked', isOk: false });
        return;
      }
      connectLive({ onMessage: onLive, onState: (live) => dispatch({ type: 'live-changed', live }) });
    },
    loadRows(from, to) {
      const missing = firstMissing(state.list, from, to);
      if (missing === undefined) return;
      const start = Math.floor(missing / PAGE_SIZE) * PAGE_SIZE;
      for (let offset = start; offset < Math.min(to, state.list.total); offset += PAGE_SIZE) loadPage(offset);
    },
    applyFilter() {
      dispatch({ type: 'filter-applied' });
      loadPage(0);
    },
    select(id) {
      dispatch({ type: 'row-selected', id });
      api
        .record(id)
        .then((record) => dispatch({ type: 'detail-loaded', record }))
        .catch((error: unknown) => dispatch({ type: 'detail-failed', id, error: errorOf(error) }));
    },
    async copyCurl(id) {
      try {
        const { curl } = await api.curl(id);
        dispatch({ type: 'curl-loaded', id, curl });
        await navigator.clipboard?.writeText(curl).catch(() => undefined); // no clipboard (no focus): the text is shown to copy by hand
      } catch (error) {
        dispatch({ type: 'flash', text: `No curl: ${errorOf(error).message}`, level: 'error' });
      }
    },
    async downloadHar() {
      try {
        saveFile(await api.har(state.list.filter), 'median-dev-calls.har');
      } catch (error) {
        dispatch({ type: 'flash', text: `No HAR: ${errorOf(error).message}`, level: 'error' });
      }
    },
    async saveCall(id) {
      try {
        const { file, isNew } = await api.saveCall(id);
        dispatch({ type: 'flash', text: isNew ? `Saved as ${file}: run it with median-dev test` : `Already saved as ${file}`, level: 'info' });
      } catch (error) {
        dispatch({ type: 'flash', text: `Not saved: ${errorOf(error).message}`, level: 'error' });
      }
    },
    async decideHeld(id, decision) {
      try {
        const answer = await api.decideHeld(id, decision);
        dispatch({ type: 'flash', text: describeDecision(answer), level: answer.didNotRun ? 'error' : 'info' });
      } catch (error) {
        dispatch({ type: 'flash', text: `Not ${decision === 'approve' ? 'approved' : 'denied'}: ${errorOf(error).message}`, level: 'error' });
      }
    },
    openReplay(record, options = {}) {
      dispatch({ type: 'replay-opened', record, ...(options.isNewId ? { isNewId: true } : {}) });
      if (!state.tools) void loadTools();
      if (options.sendNow) this.sendReplay();
    },
    sendReplay() {
      const replay = state.replay;
      if (!replay || replay.problem !== null || replay.refusal || replay.isSending) return;
      // The risk the manifest declares counts too (the daemon asks the same).
      const declared = state.tools?.tools?.find((tool) => tool.name === replay.record.tool)?.risk;
      const isUnsigned = unsignedOriginalReason(replay.record) !== undefined;
      if (isUnsigned || needsConfirmation(replay.record.risk) || needsConfirmation(declared)) dispatch({ type: 'replay-confirm-asked' });
      else void send(false);
    },
    confirmReplay() {
      void send(true);
    },
  };
}
