import { DECIDERS, type EmulatorApproval } from '../events/daemon-events.js';
import { keyLabel } from '../events/key-map.js';
import { heldLabel } from '../presentation/held-call-text.js';
import { withFlash } from './selection.js';
import type { TuiResult } from './tui-actions.js';
import { selectedHeld, type TuiState } from './tui-state.js';

/**
 * The calls median-dev's emulator holds for a decision (a `high` call waits
 * for a teammate): the header shows one, `a` approves it, `v` denies it, Tab
 * shows the next (KEY_MAP has the keys). A real Median's approvals are never
 * here: the daemon asks only its emulator.
 */

const none = (state: TuiState): TuiResult => ({ state, effects: [] });

/** A new list from the daemon: the same call stays selected while it is held; a newly held one is said. */
export function applyHeld(state: TuiState, approvals: readonly EmulatorApproval[], isLive: boolean): TuiState {
  const current = selectedHeld(state)?.id;
  const at = current === undefined ? -1 : approvals.findIndex((a) => a.id === current);
  const next: TuiState = { ...state, held: [...approvals], heldIndex: Math.max(0, at) };
  const known = new Set(state.held.map((a) => a.id));
  const arrived = approvals.find((a) => !known.has(a.id));
  if (!isLive || !arrived) return next;
  const waits = arrived.waitingFor === 'reviewer' ? 'the reviewer' : 'a teammate';
  return withFlash(
    next,
    `median-dev's emulator holds ${heldLabel(arrived)} for ${waits}: ${keyLabel('approve-held')} approves it (it runs at the route), ${keyLabel('deny-held')} denies it.`,
    'warn',
  );
}

/** The approve, deny and next-held keys. */
export function heldKey(state: TuiState, action: 'approve-held' | 'deny-held' | 'next-held'): TuiResult {
  const held = selectedHeld(state);
  if (!held) return none(withFlash(state, "median-dev's emulator holds no call for a decision (a real Median's approvals are decided in Median).", 'warn'));
  if (action === 'next-held') return none({ ...state, heldIndex: (state.heldIndex + 1) % state.held.length });
  const decision = action === 'approve-held' ? 'approve' : 'deny';
  const flashed = withFlash(state, `${decision === 'approve' ? 'Approving' : 'Denying'} ${heldLabel(held)} in the emulator…`);
  return { state: flashed, effects: [{ type: 'send', command: { command: 'emulator-decision', id: held.id, decision, as: DECIDERS.tui } }] };
}
