import type { CallRecord } from '../median/call-record.js';
import type { ControlCommand } from '../events/daemon-events.js';
import { requestReplay } from './key-reducer.js';
import { withFlash } from './selection.js';
import { describeDecision } from '../presentation/held-call-text.js';
import type { CommandError, TuiResult } from './tui-actions.js';
import type { ReplayCommand, TuiState } from './tui-state.js';

/** What the daemon answered to a command the TUI sent, and the input the editor gave back: the footer says it. */

const none = (state: TuiState): TuiResult => ({ state, effects: [] });

/** The record a replay command names: by record id (what the TUI sends), else the original of a toolCallId. */
function findByToolCallId(state: TuiState, toolCallId: string): CallRecord | undefined {
  for (let i = state.records.length - 1; i >= state.records.start; i--) {
    const record = state.records.at(i);
    if (record?.id === toolCallId) return record;
  }
  for (let i = state.records.length - 1; i >= state.records.start; i--) {
    const record = state.records.at(i);
    if (record?.toolCallId === toolCallId && record.replayOf === null) return record;
  }
  for (let i = state.records.length - 1; i >= state.records.start; i--) {
    const record = state.records.at(i);
    if (record?.toolCallId === toolCallId) return record;
  }
  return undefined;
}

function describeResult(command: ControlCommand, result: unknown): string {
  const facts = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
  switch (command.command) {
    case 'replay': {
      const status = typeof facts.status === 'number' ? `HTTP ${facts.status}` : 'no answer';
      const verdict = typeof facts.verdict === 'string' ? ` ${facts.verdict}` : '';
      const ms = typeof facts.durationMs === 'number' ? ` in ${Math.round(facts.durationMs)} ms` : '';
      return `↻ Replayed ${String(facts.toolCallId ?? command.toolCallId)}: ${status}${verdict}${ms}.`;
    }
    case 'sync':
      return 'Median synced the endpoint.';
    case 'diagnostics':
      return `Diagnostics: ${typeof facts.summary === 'string' ? facts.summary : `HTTP ${String(facts.status ?? '?')}.`}`;
    case 'simulate-hostname-change':
      return 'Hostname change requested: watch the tunnel in the header.';
    case 'restart-child':
      return 'The dev server restarted.';
    case 'clear':
      return 'Cleared.';
    case 'inspector-link':
      return `Open the inspector: ${(result as { link?: string } | null)?.link ?? '?'}`;
    case 'emulator-decision':
      return describeDecision(facts);
    default: {
      const never: never = command;
      return String(never);
    }
  }
}

export function commandResult(state: TuiState, command: ControlCommand, outcome: { ok: true; result: unknown } | { ok: false; error: CommandError }): TuiResult {
  if (outcome.ok) return none(withFlash(state, describeResult(command, outcome.result)));
  const { error } = outcome;
  const isAskable =
    (error.code === 'replay_needs_confirmation' && command.command === 'replay' && command.confirmed !== true) ||
    (error.code === 'replay_unsigned_original' && command.command === 'replay' && command.allowUnsignedOriginal !== true);
  if (command.command === 'replay' && isAskable) {
    // The daemon knew a risk the TUI did not (a call seen only as a summary): ask now.
    const record = findByToolCallId(state, command.toolCallId);
    if (record) return none({ ...state, overlay: { kind: 'confirm-replay', command, record } });
  }
  return none(withFlash(state, `${command.command} failed: ${error.message}${error.hint ? ` ${error.hint}` : ''}`, 'error'));
}

export function inputEdited(state: TuiState, record: CallRecord, text: string | undefined): TuiResult {
  if (text === undefined) return none(withFlash(state, 'Edit cancelled: nothing sent.'));
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    return none(withFlash(state, `The edited input is not JSON (${(error as Error).message}); nothing sent.`, 'error'));
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return none(withFlash(state, 'The edited input must be a JSON object; nothing sent.', 'error'));
  }
  // A different input under the same toolCallId would hit the route's idempotency key: use a new id.
  const command: ReplayCommand = { command: 'replay', toolCallId: record.replayOf ?? record.id, newId: true, input };
  return requestReplay(state, record, command);
}
