import type { CallRecord } from '../../src/median/index.js';
import { reduce, type TuiAction, type TuiEffect, type TuiState } from '../../src/tui/index.js';
import { callEvent } from './record-fixtures.js';

/** Reduces the actions in order, as the TUI does, and gives the last state and its effects. */
export function run(state: TuiState, ...actions: TuiAction[]): { state: TuiState; effects: TuiEffect[] } {
  let result = { state, effects: [] as TuiEffect[] };
  for (const action of actions) result = reduce(result.state, action);
  return result;
}

export const key = (k: string): TuiAction => ({ type: 'key', key: k });
export const arrive = (record: CallRecord): TuiAction => ({ type: 'event', event: callEvent(record) });
