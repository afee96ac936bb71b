import { describe, expect, it } from 'vitest';
import { initialState, reduce, type TuiAction, type TuiState } from '../../../src/tui/index.js';
import { formatRow, columnTitles } from '../../../src/tui/format-row.js';
import { renderFrame } from '../../../src/tui/render-frame.js';
import { plainText, wrapWords } from '../../../src/tui/styled-text.js';
import { makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';

const DIR = '/tmp/median-dev-demo-a1B2c3';
const COMMAND = `median-dev calls --data-dir ${DIR} --env ${DIR}/demo.env`;
const NOTE = `From another terminal: ${COMMAND}`;

function run(state: TuiState, ...actions: TuiAction[]): TuiState {
  return actions.reduce((current, action) => reduce(current, action).state, state);
}
const key = (k: string): TuiAction => ({ type: 'key', key: k });
const demo = (width = 80, height = 24) => run(initialState({ isDemo: true, helpNote: NOTE, width, height }), { type: 'snapshot', snapshot: makeSnapshot([makeRecord(), makeRecord()]) });
const panelText = (state: TuiState, name: string) => (renderFrame(state).panels.find((panel) => panel.name === name)?.lines ?? []).map(plainText);
const overlayText = (state: TuiState) => (renderFrame(state).overlay?.lines ?? []).map(plainText);
/** What a shell makes of pasted lines: a line ending in `\` goes on with the next. */
const pasted = (lines: string[]) => lines.map((line) => line.trimEnd()).join('\n').replace(/\\\n/g, '');

describe('80×24', () => {
  it('the footer wraps the second-terminal command instead of cutting it, and pasted it is the command', () => {
    const state = demo();
    const footer = panelText(state, 'footer');
    expect(footer.length).toBeGreaterThan(1);
    expect(footer.every((line) => line.length === 80)).toBe(true);
    expect(footer.join('')).not.toContain('…');
    expect(pasted(footer)).toBe(NOTE);
    // The rows above make room: the frame still fills exactly 24 rows.
    const frame = renderFrame(state);
    const footerPanel = frame.panels.find((panel) => panel.name === 'footer');
    expect((footerPanel?.top ?? 0) + (footerPanel?.height ?? 0)).toBe(24);
    const detail = frame.panels.find((panel) => panel.name === 'detail');
    expect((detail?.top ?? 0) + (detail?.height ?? 0)).toBe(footerPanel?.top);
  });

  it('once a key replaces the note, the footer is one line again and the list grows back', () => {
    const before = demo();
    const after = run(before, key('down'));
    expect(panelText(after, 'footer')).toHaveLength(1);
    expect(after.viewport.height).toBeGreaterThanOrEqual(before.viewport.height);
  });

  it('? fits the screen, ends with how to close it, and scrolls to the note', () => {
    const open = run(demo(), key('?'));
    const frame = renderFrame(open);
    expect(frame.overlay?.height).toBeLessThanOrEqual(22);
    const first = overlayText(open);
    expect(first.at(-1)).toContain('any other key closes this');
    expect(first.some((line) => line.includes('…'))).toBe(false);
    expect(frame.overlay?.title).toMatch(/Keys 1–\d+ of \d+/);

    const bottom = run(open, key('G'));
    expect(bottom.overlay?.kind).toBe('help');
    const last = overlayText(bottom);
    expect(pasted(last.filter((line) => line.includes('terminal') || line.includes('--') || line.includes('demo.env')))).toContain(COMMAND);
    expect(last.at(-1)).toContain('any other key closes this');
    // Back up, then any other key closes it.
    expect(overlayText(run(bottom, key('g')))).toEqual(first);
    expect(run(bottom, key('x')).overlay).toBeNull();
  });

  it('a help that fits is not scrollable: any key closes it', () => {
    const open = run(demo(160, 60), key('?'));
    expect(overlayText(open).at(-1)).toContain('any key closes this');
    expect(run(open, key('j')).overlay).toBeNull();
  });

  it('the list keeps a call id column, as a prefix that show and replay take', () => {
    const record = makeRecord();
    expect(plainText(columnTitles(78))).toContain('CALL ID');
    const row = formatRow(record, 78);
    expect(row).toHaveLength(78);
    const shown = /(call_[0-9a-f]+)… /.exec(row)?.[1] ?? '';
    expect(shown.length).toBeGreaterThanOrEqual(12);
    expect(record.toolCallId.startsWith(shown)).toBe(true);
    expect(row).toContain('lookup_order');
  });
});

describe('wrapWords', () => {
  it.each([
    ['a short text stays', 'abc def', 20, {}, ['abc def']],
    ['at spaces', 'aaa bbb ccc', 7, {}, ['aaa bbb', 'ccc']],
    ['a hanging indent', 'aaa bbb ccc', 8, { indent: 2 }, ['aaa bbb', '  ccc']],
    ['a command: continuation on every line but the last', 'cmd --a xx --b yy', 10, { continuation: ' \\' }, ['cmd --a \\', 'xx --b \\', 'yy']],
    ['a word longer than the line is cut, with a bare backslash', 'go abcdefghij', 6, { continuation: ' \\' }, ['go \\', 'abcd\\', 'efgh\\', 'ij']],
  ])('%s', (_name, text, width, options, expected) => {
    const lines = wrapWords(text, width, options);
    expect(lines).toEqual(expected);
    expect(lines.every((line) => line.length <= width)).toBe(true);
    if ('continuation' in options) expect(pasted(lines)).toBe(text);
  });
});
