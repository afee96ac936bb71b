import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'dotenv';
import { setEnvVariable } from '../../../src/config/env-file-editor.js';

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

describe('setEnvVariable: quotes, comments and multi-line values of other variables', () => {
  it.each([
    // A MEDIAN_TOOLS_URL= line inside another variable's multi-line value is
    // part of that value: rewriting it would corrupt a PEM or JSON secret.
    ['inside a single-quoted PEM', "PEM='-----BEGIN\nMEDIAN_TOOLS_URL=fake\n-----END'\n", `PEM='-----BEGIN\nMEDIAN_TOOLS_URL=fake\n-----END'\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['inside a backtick JSON value', 'J=`{\nMEDIAN_TOOLS_URL=fake\n}`\n', `J=\`{\nMEDIAN_TOOLS_URL=fake\n}\`\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['inside a double-quoted value with an escaped quote on its first line', 'J="a\\"\nMEDIAN_TOOLS_URL=fake\n"\n', `J="a\\"\nMEDIAN_TOOLS_URL=fake\n"\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['inside a double-quoted value with an escaped quote on a middle line', 'J="a\nb\\"\nMEDIAN_TOOLS_URL=fake\n"\n', `J="a\nb\\"\nMEDIAN_TOOLS_URL=fake\n"\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a multi-line value closed on a later line', 'J="a\nb"\nMEDIAN_TOOLS_URL=old\n', `J="a\nb"\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a multi-line value closed at the start of a line', 'J="a\n"\nMEDIAN_TOOLS_URL=old\n', `J="a\n"\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a single-quoted value whose backslash does not escape', "S='a\\'\nMEDIAN_TOOLS_URL=old\n", `S='a\\'\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a multi-line single-quoted value closed after a backslash', "S='a\nb\\'\nMEDIAN_TOOLS_URL=old\n", `S='a\nb\\'\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a quoted value closed on its own line', 'Q="x"\nMEDIAN_TOOLS_URL=old\n', `Q="x"\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after an empty quoted value', 'Q=""\nMEDIAN_TOOLS_URL=old\n', `Q=""\nMEDIAN_TOOLS_URL=${URL}\n`],
    // dotenv reads an unclosed quote as a bare value (Q is `"`): the next line is an assignment of its own.
    ['after a lone opening quote that runs to the end', 'Q="\nMEDIAN_TOOLS_URL=old\n', `Q="\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['after a value that only ends in a quote', 'Q=a"\nMEDIAN_TOOLS_URL=old\n', `Q=a"\nMEDIAN_TOOLS_URL=${URL}\n`],
  ])('%s', (_label, before, after) => {
    expect(setEnvVariable(before, 'MEDIAN_TOOLS_URL', URL)).toBe(after);
  });

  it.each([
    ['a double-quoted value and its comment', 'MEDIAN_TOOLS_URL="old" # c\n', `MEDIAN_TOOLS_URL="${URL}" # c\n`],
    ['a double-quoted value with an escaped quote', 'MEDIAN_TOOLS_URL="o\\"ld" # c\n', `MEDIAN_TOOLS_URL="${URL}" # c\n`],
    ['a single-quoted value with a backslash before its end', "MEDIAN_TOOLS_URL='old\\' # c\n", `MEDIAN_TOOLS_URL='${URL}' # c\n`],
    ['a backtick value and its comment', 'MEDIAN_TOOLS_URL=`old` # c\n', `MEDIAN_TOOLS_URL=\`${URL}\` # c\n`],
    // dotenv reads it bare (`"old`), and the comment as a comment.
    ['an unclosed quoted value (its comment kept)', 'MEDIAN_TOOLS_URL="old # c\n', `MEDIAN_TOOLS_URL=${URL} # c\n`],
    // dotenv cuts a bare value at any #: what follows is a comment to it, kept as one.
    ['an unquoted value with # inside a word', 'MEDIAN_TOOLS_URL=old#frag\n', `MEDIAN_TOOLS_URL=${URL}#frag\n`],
    ['an unquoted value with a tab before #', 'MEDIAN_TOOLS_URL=old\t# c\n', `MEDIAN_TOOLS_URL=${URL}\t# c\n`],
    ['an unquoted value with two comments', 'MEDIAN_TOOLS_URL=old # a # b\n', `MEDIAN_TOOLS_URL=${URL} # a # b\n`],
    ['an empty value', 'MEDIAN_TOOLS_URL=\n', `MEDIAN_TOOLS_URL=${URL}\n`],
    ['indentation and export spacing', '  export   MEDIAN_TOOLS_URL\t=\told\n', `  export   MEDIAN_TOOLS_URL\t=\t${URL}\n`],
  ])('replaces %s', (_label, before, after) => {
    expect(setEnvVariable(before, 'MEDIAN_TOOLS_URL', URL)).toBe(after);
  });
});

describe('setEnvVariable: how a value is written', () => {
  it.each([
    ['a plain value, bare', 'abc', 'V=abc\n'],
    ['a space: double-quoted', 'a b', 'V="a b"\n'],
    ['a tab: double-quoted', 'a\tb', 'V="a\tb"\n'],
    ['a form feed: double-quoted', 'a\fb', 'V="a\fb"\n'],
    ['a vertical tab: double-quoted', 'a\vb', 'V="a\vb"\n'],
    ['a #: double-quoted', 'a#b', 'V="a#b"\n'],
    // dotenv has no escapes: a value is put between quotes it does not hold.
    ['a double quote: single-quoted', 'a"b', "V='a\"b'\n"],
    ['a single quote: double-quoted', "a'b", 'V="a\'b"\n'],
    ['a backtick: double-quoted', 'a`b', 'V="a`b"\n'],
    ['a backslash: double-quoted', 'a\\b', 'V="a\\b"\n'],
    ['a backslash and n: single-quoted (dotenv reads \\n in double quotes as a line break)', 'a\\nb', "V='a\\nb'\n"],
    ['a backslash and r: single-quoted', 'a\\rb', "V='a\\rb'\n"],
    ['double and single quotes: backticks', 'a"\'b', 'V=`a"\'b`\n'],
    ['an empty value', '', 'V=\n'],
  ])('%s', (_label, value, after) => {
    const out = setEnvVariable('', 'V', value);
    expect(out).toBe(after);
    expect(parse(out).V).toBe(value);
  });

  it('keeps the quotes an existing value uses while they hold the new one', () => {
    expect(setEnvVariable("V='old'\n", 'V', 'a b')).toBe("V='a b'\n");
    expect(setEnvVariable('V=`old`\n', 'V', 'a b')).toBe('V=`a b`\n');
    expect(setEnvVariable('V="old"\n', 'V', 'ab')).toBe('V="ab"\n');
    expect(setEnvVariable("V='old'\n", 'V', "a'b")).toBe('V="a\'b"\n');
    expect(setEnvVariable('V=`old`\n', 'V', 'a`"b')).toBe("V='a`\"b'\n");
    expect(setEnvVariable('V="old"\n', 'V', 'a"b')).toBe("V='a\"b'\n");
  });

  it('refuses a value no quote can hold (all three quote characters)', () => {
    expect(() => setEnvVariable('', 'V', 'a"\'`b')).toThrow(TypeError);
  });

  it('writes any single-line value so dotenv reads it back (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((v) => !/[\r\n]/.test(v) && !(v.includes('"') && v.includes("'") && v.includes('`'))),
        fc.constantFrom('V=old\n', 'V="old"\n', "V='old'\n", 'V=`old`\n', ''),
        (value, before) => {
          expect(parse(setEnvVariable(before, 'V', value)).V).toBe(value);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a digit first', '1A'],
    ['a dash', 'A-B'],
    ['a dot', 'A.B'],
    ['nothing', ''],
    ['a space', 'A B'],
    ['a name after other text', 'x;A'],
    ['a name before other text', 'A;x'],
  ])('refuses a variable name with %s', (_label, name) => {
    expect(() => setEnvVariable('', name, 'v')).toThrow(TypeError);
  });

  it('accepts names with underscores and digits after the first character', () => {
    expect(setEnvVariable('', '_A1', 'v')).toBe('_A1=v\n');
  });

  it.each([['\r'], ['\n'], ['\r\n']])('refuses a value with the line break %j', (br) => {
    expect(() => setEnvVariable('', 'V', `a${br}B=2`)).toThrow(new TypeError('A value written to an env file cannot contain a line break'));
  });

  it('names the bad variable name and the quote problem in its errors', () => {
    expect(() => setEnvVariable('', '1A', 'v')).toThrow(new TypeError('Not a variable name: 1A'));
    expect(() => setEnvVariable('', 'V', 'a"\'`b')).toThrow(new TypeError('A value holding all three quote characters cannot be written to an env file'));
  });
});

describe('setEnvVariable: line ends and the byte order mark', () => {
  it.each([
    ['appends with the first line end the file uses (CRLF before LF)', 'A=1\r\nB=2\n', `A=1\r\nB=2\nMEDIAN_TOOLS_URL=${URL}\r\n`],
    ['appends with the first line end the file uses (LF before CRLF)', 'A=1\nB=2\r\n', `A=1\nB=2\r\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['appends with CR after a CR-ended file', 'A=1\r', `A=1\rMEDIAN_TOOLS_URL=${URL}\r`],
    ['adds the missing line end of a CRLF file', 'A=1\r\nB=2', `A=1\r\nB=2\r\nMEDIAN_TOOLS_URL=${URL}\r\n`],
    ['a one-line file without a line end', 'A=1', `A=1\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['only a line end', '\n', `\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['a BOM and a target on a later line', '\uFEFFA=1\nMEDIAN_TOOLS_URL=old\n', `\uFEFFA=1\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['a BOM alone', '\uFEFF', `\uFEFF\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['two targets, the first after a BOM', '\uFEFFMEDIAN_TOOLS_URL=a\nMEDIAN_TOOLS_URL=b\n', `\uFEFFMEDIAN_TOOLS_URL=${URL}\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['blank lines kept', '\n\nMEDIAN_TOOLS_URL=a\n\n', `\n\nMEDIAN_TOOLS_URL=${URL}\n\n`],
  ])('%s', (_label, before, after) => {
    expect(setEnvVariable(before, 'MEDIAN_TOOLS_URL', URL)).toBe(after);
  });
});
