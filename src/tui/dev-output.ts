import { overlayView } from './overlay-view.js';
import type { TuiState } from './tui-state.js';

/** The dev server's lines the TUI keeps (the whole output is in the data dir's dev-server.log). */
export const DEV_OUTPUT_LINES = 200;

export function appendDevOutput(state: TuiState, lines: readonly string[]): TuiState {
  const devOutput = [...state.devOutput, ...lines];
  return { ...state, devOutput: devOutput.length > DEV_OUTPUT_LINES ? devOutput.slice(-DEV_OUTPUT_LINES) : devOutput };
}

/** The dev server's output in a box, scrolled to its last lines (the movement keys scroll it, any other key closes it). */
export function openDevOutput(state: TuiState, why?: string): TuiState {
  const where = state.daemon.devServerLog ? `all of it: ${state.daemon.devServerLog}` : undefined;
  const lines = [
    ...(why ? [why, ''] : []),
    ...(state.devOutput.length > 0 ? state.devOutput : ['(the dev server has printed nothing yet)']),
    ...(where ? ['', where] : []),
  ];
  const opened: TuiState = { ...state, overlay: { kind: 'text', title: 'Dev server output', lines, scroll: 0 } };
  const view = overlayView(opened);
  return { ...opened, overlay: { kind: 'text', title: 'Dev server output', lines, scroll: view?.maxScroll ?? 0 } };
}
