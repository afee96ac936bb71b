import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../src/events/index.js';
import { initialState, reduce, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { overlayContent } from '../../../src/tui/format-chrome.js';
import { plainText } from '../../../src/tui/styled-text.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';

const NOTE = 'From another terminal: median-dev calls --data-dir /tmp/d --env /tmp/d/demo.env';

function run(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce((current, action) => reduce(current, action).state, state);
}
const event = (e: DaemonEvent): TuiAction => ({ type: 'event', event: e });
const demo = (): TuiState => run(initialState({ isDemo: true, helpNote: NOTE, width: 140, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot([]) });

describe('the help note (the demo’s second-terminal command)', () => {
  it('is the first footer, and stays through the daemon’s info notes', () => {
    expect(demo().flash).toEqual({ text: NOTE, level: 'info' });
    const after = run(
      demo(),
      event({ event: 'log', at: 't', level: 'info', message: 'Endpoint synced: 7 tools.' }),
      event({ event: 'tools-url', at: 't', url: 'https://a.lt.median.test/api/median', envFile: '/tmp/d/demo.env' }),
    );
    expect(after.flash?.text).toBe(NOTE);
  });

  it('gives way to a warning, and to the first key', () => {
    expect(run(demo(), event({ event: 'log', at: 't', level: 'warn', message: 'The dev server is slow.' })).flash).toEqual({ text: 'The dev server is slow.', level: 'warn' });
    const keyed = run(demo(), { type: 'key', key: 'down' });
    expect(keyed.flash).toBeNull();
    // Once gone, info notes show as usual.
    expect(run(keyed, event({ event: 'log', at: 't', level: 'info', message: 'Endpoint synced: 7 tools.' })).flash?.text).toBe('Endpoint synced: 7 tools.');
  });

  it('ends the ? overlay; without a note the overlay has none', () => {
    const lines = (state: TuiState) => overlayContent(run(state, { type: 'key', key: '?' }), 132)?.lines.map(plainText) ?? [];
    expect(lines(demo())).toContain(NOTE);
    const plain = run(initialState({ width: 140, height: 30 }), { type: 'snapshot', snapshot: makeSnapshot([]) });
    expect(plain.flash).toBeNull();
    expect(lines(plain).some((line) => line.includes('another terminal'))).toBe(false);
  });
});
