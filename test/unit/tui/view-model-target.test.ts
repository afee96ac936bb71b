import { describe, expect, it } from 'vitest';
import { eventToLogLine } from '../../../src/cli/format-event.js';
import { createStyle } from '../../../src/cli/terminal-style.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { formatHeader, initialState, reduce, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';

function run(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce((current, action) => reduce(current, action).state, state);
}
const event = (e: DaemonEvent): TuiAction => ({ type: 'event', event: e });
const running = (): TuiState =>
  run(initialState({ width: 160, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot([]) }, event({ event: 'child', at: 't', state: 'running', pid: 42, command: 'npm run dev' }));

describe('what the header says about the dev server’s address', () => {
  it('says at once that it is starting and where it does not listen yet, then where it listens', () => {
    const finding = run(running(), event({ event: 'target', at: 't', url: null, how: 'default', state: 'finding' }));
    expect(formatHeader(finding)).toContain('child running pid 42 · not listening yet');
    const found = run(finding, event({ event: 'target', at: 't', url: 'http://localhost:5173', how: 'announced', state: 'starting', message: 'The dev server announced http://localhost:5173.' }));
    expect(formatHeader(found)).toContain('child running pid 42 · not listening yet');
    expect(found.flash?.text).toBe('The dev server announced http://localhost:5173.');
    const up = run(found, event({ event: 'target', at: 't', url: 'http://localhost:5173', how: 'announced', state: 'listening' }));
    expect(formatHeader(up)).toContain('child running pid 42 · localhost:5173');
    expect(formatHeader(up)).not.toContain('not listening');
  });

  it('a client that attaches later gets it from the snapshot', () => {
    const snapshot = makeSnapshot([], { child: { state: 'running', pid: 7 }, target: { url: 'http://127.0.0.1:3000', how: 'flag', state: 'starting' } });
    expect(formatHeader(run(initialState({ width: 160, height: 30 }), { type: 'snapshot', snapshot }))).toContain('child running pid 7 · not listening yet');
    const named = makeSnapshot([], { child: { state: 'running', pid: 7 }, target: { url: 'http://127.0.0.1:3000', how: 'flag', state: 'listening' } });
    // A --target the user named is not repeated in the header once it listens.
    expect(formatHeader(run(initialState({ width: 160, height: 30 }), { type: 'snapshot', snapshot: named }))).not.toContain('127.0.0.1:3000');
  });

  it('the plain log says it when there is something to say, not on every state', () => {
    const plain = createStyle(false);
    expect(eventToLogLine({ event: 'target', at: 't', url: 'http://localhost:4321', how: 'announced', state: 'starting', message: 'The dev server announced http://localhost:4321.' }, plain)).toBe(
      'target   The dev server announced http://localhost:4321.',
    );
    expect(eventToLogLine({ event: 'target', at: 't', url: 'http://localhost:4321', how: 'announced', state: 'listening' }, plain)).toBeUndefined();
  });
});
