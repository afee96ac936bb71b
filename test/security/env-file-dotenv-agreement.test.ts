import fc from 'fast-check';
import { parse } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { setEnvVariableInBytes } from '../../src/config/env-file-editor.js';

/**
 * Issue 18 item 15: a multi-line single-quoted value with an escaped quote
 * (`NOTE='it\'s` … `MEDIAN_TOOLS_URL=…` … `end'`) made median-dev rewrite the
 * line inside NOTE; dotenv then saw no MEDIAN_TOOLS_URL. The editor must
 * agree with the dotenv parser on every input: parse(edit(x)) has the URL
 * and every other variable unchanged. The attacker is the file's content.
 */
const URL = 'https://new-name.loca.lt/api/median';
const NAME = 'MEDIAN_TOOLS_URL';

/** How median-dev's reader hands a file to dotenv (env-file-reader.ts). */
const read = (bytes: Buffer) => parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));

function expectAgreement(before: Buffer): Buffer {
  const after = setEnvVariableInBytes(before, NAME, URL);
  const was = read(before);
  const now = read(after);
  expect(now[NAME]).toBe(URL);
  const { [NAME]: _old, ...others } = was;
  const { [NAME]: _new, ...othersNow } = now;
  expect(othersNow).toEqual(others);
  // Idempotent: a second run changes nothing.
  expect(setEnvVariableInBytes(after, NAME, URL).equals(after)).toBe(true);
  return after;
}

describe('item 15: the env-file editor agrees with dotenv', () => {
  it("a MEDIAN_TOOLS_URL= line inside NOTE='it\\'s … end' is NOTE's, not an assignment", () => {
    const before = Buffer.from("A=1\nNOTE='it\\'s\nMEDIAN_TOOLS_URL=https://old.loca.lt/api/median\nend'\nB=2\n");
    const after = expectAgreement(before);
    expect(read(after).NOTE).toBe(read(before).NOTE);
    expect(after.toString()).toContain("NOTE='it\\'s\nMEDIAN_TOOLS_URL=https://old.loca.lt/api/median\nend'");
  });

  it.each([
    ['a `KEY: value` line swallowing the next line', 'A:\nMEDIAN_TOOLS_URL=https://old\n'],
    ['a value on the line after the =', "MEDIAN_TOOLS_URL=\n'https://old'\nB=2\n"],
    ['an escaped double quote spanning lines', 'J="a\\"\nMEDIAN_TOOLS_URL=x\n"\n'],
    ['a backtick value with an escaped backtick', 'J=`a\\`\nMEDIAN_TOOLS_URL=x\n`\n'],
    ['a CR-only file', 'A=1\rMEDIAN_TOOLS_URL=old\rB=2\r'],
    ['a U+2028 inside a value', 'A=x\u2028MEDIAN_TOOLS_URL=y\nMEDIAN_TOOLS_URL=old\n'],
    ['invalid UTF-8 before the target', Buffer.concat([Buffer.from('A='), Buffer.from([0xc3, 0x0a, 0xa0]), Buffer.from('\nMEDIAN_TOOLS_URL=old\n')])],
  ])('%s', (_label, text) => {
    expectAgreement(Buffer.isBuffer(text) ? text : Buffer.from(text));
  });

  it('parse(edit(x)) has the URL and every other variable unchanged, whatever x is (property)', () => {
    const token = fc.oneof(
      fc.constantFrom('\n', '\r\n', '\r', ' ', '\t', '=', ':', '#', "'", '"', '`', '\\', "\\'", '\\"', '\\n', 'export ', '\u2028', '\uFEFF'),
      fc.constantFrom('A', 'NOTE', 'MEDIAN_TOOLS_URL', 'MEDIAN_TOOLS_URL=', 'MEDIAN_TOOLS_URL=https://old', 'B.C-D', 'value', 'it\\\'s', 'end'),
      fc.uint8Array({ maxLength: 3 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
        expectAgreement(Buffer.from(tokens.join(''), 'latin1'));
      }),
      { numRuns: 3_000 },
    );
  });
});
