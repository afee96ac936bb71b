import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'dotenv';
import { setEnvVariableInBytes } from '../../../src/config/index.js';

const URL = 'https://new.lt.median.test/api/median';
const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('setEnvVariableInBytes', () => {
  it('keeps a Latin-1 value byte for byte (no U+FFFD)', () => {
    const before = bytes('NAME=caf\xe9\nMEDIAN_TOOLS_URL=https://old\n');
    const after = setEnvVariableInBytes(before, 'MEDIAN_TOOLS_URL', URL);
    expect(after).toEqual(bytes(`NAME=caf\xe9\nMEDIAN_TOOLS_URL=${URL}\n`));
  });

  it('keeps bytes that are not valid UTF-8 anywhere, also when appending', () => {
    const before = Buffer.from([0x41, 0x3d, 0xff, 0xfe, 0x80, 0x0a, 0x42, 0x3d, 0xc3]);
    const after = setEnvVariableInBytes(before, 'MEDIAN_TOOLS_URL', URL);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.subarray(before.length).toString('utf8')).toBe(`\nMEDIAN_TOOLS_URL=${URL}\n`);
  });

  it.each([
    ['CR-only lines, replaced in place', 'A=1\rMEDIAN_TOOLS_URL=https://old\rB=2\r', `A=1\rMEDIAN_TOOLS_URL=${URL}\rB=2\r`],
    ['CR-only lines, appended with CR', 'A=1\rB=2\r', `A=1\rB=2\rMEDIAN_TOOLS_URL=${URL}\r`],
    ['CR-only, no final line end', 'A=1\rB=2', `A=1\rB=2\rMEDIAN_TOOLS_URL=${URL}\r`],
    ['mixed line ends kept', 'A=1\r\nMEDIAN_TOOLS_URL=x\rC=3\n', `A=1\r\nMEDIAN_TOOLS_URL=${URL}\rC=3\n`],
    ['UTF-8 BOM as bytes', '\xef\xbb\xbfMEDIAN_TOOLS_URL=a\n', `\xef\xbb\xbfMEDIAN_TOOLS_URL=${URL}\n`],
    ["a line dotenv reads as X_'s value (X_: then a line end) left alone", 'X_:\nMEDIAN_TOOLS_URL=https://old\n', `X_:\nMEDIAN_TOOLS_URL=https://old\nMEDIAN_TOOLS_URL=${URL}\n`],
    ['a MEDIAN_TOOLS_URL line inside a PEM value left alone', 'PEM="-----BEGIN\rMEDIAN_TOOLS_URL=fake\r-----END"\r', `PEM="-----BEGIN\rMEDIAN_TOOLS_URL=fake\r-----END"\rMEDIAN_TOOLS_URL=${URL}\r`],
  ])('%s', (_label, before, after) => {
    expect(setEnvVariableInBytes(bytes(before), 'MEDIAN_TOOLS_URL', URL)).toEqual(bytes(after));
  });

  it('writes the value as UTF-8', () => {
    expect(setEnvVariableInBytes(Buffer.alloc(0), 'MEDIAN_TOOLS_URL', 'https://café.test')).toEqual(Buffer.from('MEDIAN_TOOLS_URL=https://café.test\n'));
  });

  it('changes no byte outside the MEDIAN_TOOLS_URL line, whatever the other bytes are (property)', () => {
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    // Any bytes but line ends and quotes (a quote may open a multi-line value that hides the line), and not
    // ending in ':' (dotenv's `KEY: value` form reads the next line as the value: the case above).
    const junk = fc
      .uint8Array({ maxLength: 24 })
      .map((a) => Buffer.from(a.filter((b) => ![0x0a, 0x0d, 0x22, 0x27, 0x60].includes(b))))
      .filter((line) => line.at(-1) !== 0x3a);
    fc.assert(
      fc.property(fc.array(junk, { maxLength: 8 }), eol, fc.nat(8), (lines, end, at) => {
        const parts = lines.map((line) => Buffer.concat([Buffer.from('X_'), line]));
        const position = Math.min(at, parts.length);
        parts.splice(position, 0, Buffer.from('MEDIAN_TOOLS_URL=https://old'));
        const joined = Buffer.concat(parts.flatMap((p) => [p, Buffer.from(end)]));
        const out = setEnvVariableInBytes(joined, 'MEDIAN_TOOLS_URL', URL);
        const expected = Buffer.concat(
          parts.map((p, i) => (i === position ? Buffer.from(`MEDIAN_TOOLS_URL=${URL}`) : p)).flatMap((p) => [p, Buffer.from(end)]),
        );
        expect(out).toEqual(expected);
        expect(parse(out).MEDIAN_TOOLS_URL).toBe(URL);
        expect(setEnvVariableInBytes(out, 'MEDIAN_TOOLS_URL', URL)).toEqual(out);
      }),
    );
  });
});
