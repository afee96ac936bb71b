import { describe, expect, it } from 'vitest';
import { initialState, reduce, type TuiState } from '../../../src/tui/index.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';
import type { DaemonEvent, NewDaemonEvent } from '../../../src/events/index.js';

const at = '2026-01-05T14:02:10.000Z';
const event = (e: NewDaemonEvent): DaemonEvent => ({ at, ...e }) as DaemonEvent;

function withOutput(lines: string[]): TuiState {
  let state = reduce(initialState({ width: 100, height: 30 }), { type: 'snapshot', snapshot: { ...makeSnapshot([]), devServerOutput: ['from the snapshot'], devServerLog: '/p/.median-dev/dev-server.log' } }).state;
  for (const line of lines) state = reduce(state, { type: 'event', event: event({ event: 'output', stream: 'stderr', line }) }).state;
  return state;
}

describe('the dev server output in the TUI', () => {
  it('o shows the last lines, the snapshot\'s first, scrolled to the end, with where the whole log is', () => {
    const state = reduce(withOutput(['compiled', "Error: Cannot find module './db'"]), { type: 'key', key: 'o' }).state;
    expect(state.overlay).toMatchObject({ kind: 'text', title: 'Dev server output' });
    const lines = state.overlay?.kind === 'text' ? state.overlay.lines : [];
    expect(lines).toEqual(['from the snapshot', 'compiled', "Error: Cannot find module './db'", '', 'all of it: /p/.median-dev/dev-server.log']);
  });

  it('opens by itself when the dev server exits, and o closes it again', () => {
    const exited = reduce(withOutput(["Error: Cannot find module './db'"]), { type: 'event', event: event({ event: 'child', state: 'exited', pid: 9, code: 1 }) }).state;
    expect(exited.overlay?.kind === 'text' ? exited.overlay.lines : []).toContain("Error: Cannot find module './db'");
    expect(exited.flash?.level).toBe('warn');
    expect(reduce(exited, { type: 'key', key: 'o' }).state.overlay).toBeNull();
  });

  it('keeps the last 200 lines', () => {
    const state = withOutput(Array.from({ length: 250 }, (_, i) => `line ${i}`));
    expect(state.devOutput).toHaveLength(200);
    expect(state.devOutput.at(-1)).toBe('line 249');
  });
});
