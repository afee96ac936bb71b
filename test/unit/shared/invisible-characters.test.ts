import { describe, expect, it } from 'vitest';
import { createSecretMasker, safeJson, safeLine, safeText } from '../../../src/shared/index.js';
import { withoutHiddenCharacters } from '../../../src/shared/invisible-characters.js';

const KEY = `median_key_${'Zq7Wx2Lp9Rt4Vn6Kb3'.repeat(2)}`;

describe('invisible and bidi characters', () => {
  it.each([
    ['\u061c', '\\u061c'],
    ['\u200b', '\\u200b'],
    ['\u2060', '\\u2060'],
    ['\ufeff', '\\ufeff'],
    ['\u00ad', '\\u00ad'],
    ['\u{e0041}', '\\udb40\\udc41'],
    ['a\u200db', 'a\\u200db'],
    ['a\ufe0f', 'a\\ufe0f'],
  ])('%j is shown as %s, in a line and in text', (raw, shown) => {
    expect(safeLine(`x${raw}y`)).toBe(`x${shown}y`);
    expect(safeText(`x${raw}y`)).toBe(`x${shown}y`);
  });

  it('keeps the joiners and variation selectors that build emoji', () => {
    for (const emoji of ['❤️', '👨‍👩‍👧', '👍🏽']) expect(safeLine(emoji)).toBe(emoji);
  });

  it('stays exact JSON', () => {
    const value = { a: `x\u{e0041}\u200b\u200d\ufe0f\u061c ❤️` };
    expect(safeJson(value)).not.toMatch(/[\u200b\u061c]|[\u{e0000}-\u{e0fff}]/u);
    expect(JSON.parse(safeJson(value))).toEqual(value);
  });

  it.each([
    ['raw', `${KEY.slice(0, 15)}\u200b${KEY.slice(15)}`],
    ['as escape text', `${KEY.slice(0, 15)}\\u200b\\u2060${KEY.slice(15)}`],
    ['as printf octal bytes', `${KEY.slice(0, 15)}\\0342\\0200\\0213${KEY.slice(15)}`],
    ['by a tag character', `${KEY.slice(0, 20)}\u{e0041}${KEY.slice(20)}`],
    ['by an escaped tag character', `${KEY.slice(0, 20)}\\udb40\\udc41${KEY.slice(20)}`],
  ])('a key split %s is masked whole', (_how, split) => {
    expect(createSecretMasker([KEY]).mask(`url /${split}/x`)).toBe('url /median_key_****6Kb3/x');
    expect(createSecretMasker([]).mask(`url /${split}/x`)).toBe('url /median_key_****6Kb3/x');
  });

  it('masks a split key in a record, also on the JSON fast path', () => {
    const record = { request: { body: `{"k":"${KEY.slice(0, 15)}\u2060${KEY.slice(15)}"}` } };
    const { json } = createSecretMasker([KEY]).maskToJson(record);
    expect(json).toContain('median_key_****6Kb3');
    expect(json).not.toContain(KEY.slice(15, 30));
  });

  it('takes out only what hides text: escapes of visible characters and layout stay', () => {
    expect(withoutHiddenCharacters('a\\u0041b\nc\td\u200be').plain).toBe('a\\u0041b\nc\tde');
  });
});
