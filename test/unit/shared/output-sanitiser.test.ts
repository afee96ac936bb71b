import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeJson, safeLine, safeStrings, safeTerminalOutput, safeText } from '../../../src/shared/index.js';

/** Any character a terminal acts on, but the layout ones `safeText` keeps. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const ATTACK = '\u001b]0;PWNED\u0007\u001b[2J\u001b[31mevil\u009b8m\u202ehidden';

describe('safeText', () => {
  it('escapes OSC, CSI, BEL, C1 and bidi overrides as readable \\u text', () => {
    expect(safeText(ATTACK)).toBe('\\u001b]0;PWNED\\u0007\\u001b[2J\\u001b[31mevil\\u009b8m\\u202ehidden');
  });

  it('keeps \\n, \\t and \\r\\n, escapes a lone \\r (it would overwrite the line)', () => {
    expect(safeText('a\tb\nc\r\nd\re')).toBe('a\tb\nc\r\nd\\u000de');
  });

  it('leaves ordinary text, unicode and emoji alone', () => {
    expect(safeText('café ✓ 日本 🚀 "q" \\ /')).toBe('café ✓ 日本 🚀 "q" \\ /');
  });

  it('never lets a control character through, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(safeText(text).replace(/\r\n/g, '\n')).not.toMatch(RAW_CONTROL);
        expect(safeText(text).replace(/\r\n/g, '')).not.toContain('\r');
      }),
    );
  });
});

describe('safeLine', () => {
  it('escapes \\n, \\t and \\r too, so a value stays on its line', () => {
    expect(safeLine('call_x\nFAKE ROW\t\r')).toBe('call_x\\u000aFAKE ROW\\u0009\\u000d');
  });
});

describe('safeJson', () => {
  it('is JSON that parses back to the same value, with no raw control character', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        for (const input of [value, { text, nested: [text] }]) {
          const json = safeJson(input, 2);
          expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(input)));
          expect(json.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
        }
      }),
    );
  });

  it('escapes C1 and DEL, which JSON.stringify leaves raw', () => {
    expect(safeJson({ t: '\u009b\u007f' })).toBe('{"t":"\\u009b\\u007f"}');
  });

  it('writes null for a value JSON has no text for', () => {
    expect(safeJson(undefined)).toBe('null');
  });
});

describe('safeTerminalOutput', () => {
  it('lets median-dev’s own colours through when styles are allowed, and nothing else', () => {
    const own = '\u001b[1mTitle\u001b[22m \u001b[32manswered\u001b[39m';
    expect(safeTerminalOutput(own + ATTACK, { allowStyles: true })).toBe(`${own}\\u001b]0;PWNED\\u0007\\u001b[2J\u001b[31mevil\\u009b8m\\u202ehidden`);
    expect(safeTerminalOutput('\u001b[8mhidden\u001b[0m', { allowStyles: true })).toBe('\\u001b[8mhidden\u001b[0m');
  });

  it('lets a parameterless reset (ESC [ m) through like ESC [ 0 m', () => {
    expect(safeTerminalOutput('\u001b[1mx\u001b[m\u001b[0m', { allowStyles: true })).toBe('\u001b[1mx\u001b[m\u001b[0m');
  });

  it('escapes every escape when styles are off (not a terminal, NO_COLOR)', () => {
    expect(safeTerminalOutput('\u001b[1mTitle\u001b[22m', { allowStyles: false })).toBe('\\u001b[1mTitle\\u001b[22m');
  });

  it('with styles allowed, leaves no escape that is not an allowed colour', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = safeTerminalOutput(text, { allowStyles: true });
        const rest = out.replace(/\u001b\[(?:0|1|2|22|31|32|33|35|36|39)?m/g, '').replace(/\r\n/g, '\n');
        expect(rest).not.toMatch(RAW_CONTROL);
      }),
    );
  });
});

describe('safeStrings', () => {
  it('escapes every string of a record-like value with safeLine, keeping its shape and other values', () => {
    const record = { tool: '\u001b[2Jx', n: 7, ok: true, none: null, list: ['a\nb', { deep: '\u009b' }] };
    expect(safeStrings(record)).toEqual({ tool: '\\u001b[2Jx', n: 7, ok: true, none: null, list: ['a\\u000ab', { deep: '\\u009b' }] });
    expect(record.tool).toBe('\u001b[2Jx');
  });

  it('uses the cleaner it is given (safeText keeps a body\'s line breaks)', () => {
    expect(safeStrings({ body: 'a\nb\u0007' }, safeText)).toEqual({ body: 'a\nb\\u0007' });
  });
});
