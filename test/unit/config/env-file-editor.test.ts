import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'dotenv';
import { findAssignments, setEnvVariable } from '../../../src/config/env-file-editor.js';

const URL = 'https://new.lt.median.test/api/median';

describe('setEnvVariable', () => {
  it.each([
    ['empty file', '', `MEDIAN_TOOLS_URL=${URL}\n`],
    ['no final newline', 'A=1', `A=1\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['CRLF file, appended', 'A=1\r\nB=2\r\n', `A=1\r\nB=2\r\nMEDIAN_TOOLS_URL=${URL}\r\n`],
    ['replaced in place', 'A=1\nMEDIAN_TOOLS_URL=https://old\nB=2\n', `A=1\nMEDIAN_TOOLS_URL=${URL}\nB=2\n`],
    ['CRLF kept', 'MEDIAN_TOOLS_URL=https://old\r\nB=2\r\n', `MEDIAN_TOOLS_URL=${URL}\r\nB=2\r\n`],
    ['last line without newline', 'A=1\nMEDIAN_TOOLS_URL=https://old', `A=1\nMEDIAN_TOOLS_URL=${URL}`],
    ['export prefix', 'export MEDIAN_TOOLS_URL=https://old\n', `export MEDIAN_TOOLS_URL=${URL}\n`],
    ['double quotes', 'MEDIAN_TOOLS_URL="https://old"\n', `MEDIAN_TOOLS_URL="${URL}"\n`],
    ['single quotes + comment', "MEDIAN_TOOLS_URL='https://old' # tunnel\n", `MEDIAN_TOOLS_URL='${URL}' # tunnel\n`],
    ['unquoted + comment', 'MEDIAN_TOOLS_URL=https://old # tunnel\n', `MEDIAN_TOOLS_URL=${URL} # tunnel\n`],
    ['spaces around =', 'MEDIAN_TOOLS_URL = https://old\n', `MEDIAN_TOOLS_URL = ${URL}\n`],
    ['duplicates all updated', 'MEDIAN_TOOLS_URL=a\nX=1\nMEDIAN_TOOLS_URL=b\n', `MEDIAN_TOOLS_URL=${URL}\nX=1\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['BOM kept', '\uFEFFMEDIAN_TOOLS_URL=a\n', `\uFEFFMEDIAN_TOOLS_URL=${URL}\n`],
    ['commented out left alone', '# MEDIAN_TOOLS_URL=a\n', `# MEDIAN_TOOLS_URL=a\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['similar name left alone', 'MEDIAN_TOOLS_URL_OLD=a\n', `MEDIAN_TOOLS_URL_OLD=a\nMEDIAN_TOOLS_URL=${URL}\n`],
    [
      'inside another multi-line value left alone',
      'CERT="line1\nMEDIAN_TOOLS_URL=fake\nline3"\n',
      `CERT="line1\nMEDIAN_TOOLS_URL=fake\nline3"\nMEDIAN_TOOLS_URL=${URL}\n`,
    ],
  ])('%s', (_label, before, after) => {
    expect(setEnvVariable(before, 'MEDIAN_TOOLS_URL', URL)).toBe(after);
  });

  it('refuses a value with a line break', () => {
    expect(() => setEnvVariable('', 'MEDIAN_TOOLS_URL', 'a\nB=2')).toThrow(TypeError);
  });

  it('finds assignments outside multi-line values only', () => {
    const names = findAssignments('A="x\nB=1\n"\nC=2\n').map((a) => a.name);
    expect(names).toEqual(['A', 'C']);
  });

  const lineArb = fc.oneof(
    fc.constantFrom(
      '# comment',
      '',
      'export A=1',
      'B="quoted # not a comment"',
      "C='single'",
      'MEDIAN_KEY=median_key_abc',
      'MEDIAN_TOOLS_URL=https://old.example/api/median',
      'export MEDIAN_TOOLS_URL="https://old"',
      '   ',
      'D=',
    ),
    fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n"'`:]/g, '')), // dotenv reads `KEY: value` lines, which may swallow the next line
  );

  it('never changes a byte outside MEDIAN_TOOLS_URL lines (property)', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
        (lines, eol, finalNewline, bom) => {
          const text = (bom ? '\uFEFF' : '') + lines.join(eol) + (finalNewline && lines.length > 0 ? eol : '');
          const out = setEnvVariable(text, 'MEDIAN_TOOLS_URL', URL);
          const isTarget = (l: string) => /^\s*(export\s+)?MEDIAN_TOOLS_URL\s*=/.test(l.replace(/^\uFEFF/, ''));
          const before = text.split(/\r?\n/);
          const after = out.split(/\r?\n/);
          // every non-target line survives unchanged, in order
          expect(after.filter((l) => !isTarget(l)).slice(0, before.filter((l) => !isTarget(l)).length)).toEqual(
            before.filter((l) => !isTarget(l)),
          );
          // and dotenv now reads the new value
          expect(parse(out.replace(/^\uFEFF/, '')).MEDIAN_TOOLS_URL).toBe(URL);
          // idempotent
          expect(setEnvVariable(out, 'MEDIAN_TOOLS_URL', URL)).toBe(out);
        },
      ),
      { numRuns: 300 },
    );
  });
});
