import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deriveToolSecret,
  resolveToolSecret,
  signBody,
  computeSignature,
  parseSignatureHeader,
  signatureAge,
  verifySignature,
  checkMedianKey,
  assertMedianKey,
  KEY_MESSAGES,
} from '../../../src/median/index.js';

const KEY = 'median_key_' + 'A1b2C3d4'.repeat(4);
const secret = deriveToolSecret(KEY);
const NOW = 1_750_000_000_000;
const body = '{"tool":"orderStatus","toolCallId":"call_1"}';

describe('tool signing secret', () => {
  it('is HMAC-SHA256(MEDIAN_KEY, "median/tool-signing/v1") computed independently', () => {
    const expected = createHmac('sha256', KEY).update('median/tool-signing/v1').digest();
    expect(secret.equals(expected)).toBe(true);
    expect(secret).toHaveLength(32);
  });

  it('is overridden by MEDIAN_TOOL_SECRET', () => {
    const hex = 'ab'.repeat(32);
    expect(resolveToolSecret({ medianKey: KEY, toolSecret: hex }).toString('hex')).toBe(hex);
    expect(() => resolveToolSecret({ medianKey: KEY, toolSecret: 'xyz' })).toThrow(
      expect.objectContaining({ code: 'invalid_tool_secret' }),
    );
    expect(() => resolveToolSecret({})).toThrow(expect.objectContaining({ code: 'missing_secret' }));
  });
});

describe('key validation', () => {
  it.each([
    ['median_key_' + 'a'.repeat(32), undefined],
    ['median_key_' + 'a'.repeat(31), 'malformed'],
    ['median_key_' + 'a'.repeat(31) + '-', 'malformed'],
    ['pk_live_' + 'a'.repeat(40), 'wrong_prefix'],
    ['', 'wrong_prefix'],
  ])('%s → %s', (key, problem) => {
    expect(checkMedianKey(key)).toBe(problem);
  });

  it('throws invalid_median_key with the docs message', () => {
    expect(() => assertMedianKey('sk_x')).toThrow(
      expect.objectContaining({ code: 'invalid_median_key', message: KEY_MESSAGES.wrongPrefix }),
    );
    expect(() => assertMedianKey('median_key_short')).toThrow(
      expect.objectContaining({ code: 'invalid_median_key', message: KEY_MESSAGES.malformed }),
    );
  });
});

describe('verifySignature', () => {
  const v1At = (t: number) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

  it('signs as t=<ms>,v1=hex(HMAC(secret, "<t>.<body>"))', () => {
    expect(signBody(secret, body, NOW)).toBe(`t=${NOW},v1=${v1At(NOW)}`);
  });

  it.each([
    ['exactly 300000 ms old', NOW - 300_000, 'valid'],
    ['300001 ms old', NOW - 300_001, 'stale_timestamp'],
    ['exactly 300000 ms ahead', NOW + 300_000, 'valid'],
    ['300001 ms ahead', NOW + 300_001, 'stale_timestamp'],
    ['now', NOW, 'valid'],
  ])('a signature %s is %s', (_label, t, outcome) => {
    expect(verifySignature(`t=${t},v1=${v1At(t)}`, body, secret, NOW)).toBe(outcome);
  });

  it.each([
    ['absent', undefined, 'missing_signature'],
    ['empty', '', 'missing_signature'],
    ['blank', '   ', 'missing_signature'],
    ['no v1', `t=${NOW}`, 'malformed_signature'],
    ['no t', `v1=${'a'.repeat(64)}`, 'malformed_signature'],
    ['t not a number', `t=abc,v1=${'a'.repeat(64)}`, 'malformed_signature'],
    ['v1 not hex', `t=${NOW},v1=${'z'.repeat(64)}`, 'malformed_signature'],
    ['v1 too short', `t=${NOW},v1=abcd`, 'malformed_signature'],
    ['extra part', `t=${NOW},v1=${'a'.repeat(64)},v0=1`, 'malformed_signature'],
    ['duplicate t', `t=${NOW},t=${NOW}`, 'malformed_signature'],
    ['stripe style', `t=${NOW},v1=${'a'.repeat(64)};`, 'malformed_signature'],
    ['bare hex', 'a'.repeat(64), 'malformed_signature'],
    ['negative t', `t=-5,v1=${'a'.repeat(64)}`, 'malformed_signature'],
    ['stale and malformed v1', `t=1,v1=xyz`, 'malformed_signature'],
  ])('%s header is %s', (_label, header, outcome) => {
    expect(verifySignature(header, body, secret, NOW)).toBe(outcome);
  });

  it('stale wins over invalid', () => {
    expect(verifySignature(`t=${NOW - 400_000},v1=${'a'.repeat(64)}`, body, secret, NOW)).toBe('stale_timestamp');
  });

  it('a signature from another key, or over other bytes, is invalid', () => {
    const other = deriveToolSecret('median_key_' + 'Z'.repeat(32));
    expect(verifySignature(signBody(other, body, NOW), body, secret, NOW)).toBe('invalid_signature');
    expect(verifySignature(signBody(secret, body, NOW), body + ' ', secret, NOW)).toBe('invalid_signature');
  });

  it('verifies raw bytes, not re-encoded text', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(verifySignature(signBody(secret, bytes, NOW), bytes, secret, NOW)).toBe('valid');
  });
});

describe('parseSignatureHeader', () => {
  const hex = 'aB'.repeat(32);

  it.each<[string, string, { timestamp: number; v1: string } | undefined]>([
    ['the usual shape', `t=${NOW},v1=${'ab'.repeat(32)}`, { timestamp: NOW, v1: 'ab'.repeat(32) }],
    ['v1 before t', `v1=${'ab'.repeat(32)},t=${NOW}`, { timestamp: NOW, v1: 'ab'.repeat(32) }],
    ['spaces around names and values', ` t = ${NOW} , v1 = ${'ab'.repeat(32)} `, { timestamp: NOW, v1: 'ab'.repeat(32) }],
    ['upper-case hex, given back lower-case', `t=${NOW},v1=${hex}`, { timestamp: NOW, v1: 'ab'.repeat(32) }],
    ['a one-digit timestamp', `t=0,v1=${'ab'.repeat(32)}`, { timestamp: 0, v1: 'ab'.repeat(32) }],
    ['a 15-digit timestamp', `t=${'9'.repeat(15)},v1=${'ab'.repeat(32)}`, { timestamp: 999_999_999_999_999, v1: 'ab'.repeat(32) }],
    ['a 16-digit timestamp', `t=${'9'.repeat(16)},v1=${'ab'.repeat(32)}`, undefined],
    ['an empty timestamp', `t=,v1=${'ab'.repeat(32)}`, undefined],
    ['a timestamp with a letter after the digits', `t=${NOW}x,v1=${'ab'.repeat(32)}`, undefined],
    ['a timestamp with a letter before the digits', `t=x${NOW},v1=${'ab'.repeat(32)}`, undefined],
    ['a fractional timestamp', `t=${NOW}.5,v1=${'ab'.repeat(32)}`, undefined],
    ['v1 of 63 hex digits', `t=${NOW},v1=${'a'.repeat(63)}`, undefined],
    ['v1 of 65 hex digits', `t=${NOW},v1=${'a'.repeat(65)}`, undefined],
    ['v1 with a non-hex character after 64 hex digits', `t=${NOW},v1=${'a'.repeat(64)}g`, undefined],
    ['v1 with a non-hex character before 64 hex digits', `t=${NOW},v1=g${'a'.repeat(64)}`, undefined],
    ['an unknown name with a v1-shaped value', `t=${NOW},v0=${'ab'.repeat(32)}`, undefined],
    ['duplicate v1', `v1=${'ab'.repeat(32)},v1=${'ab'.repeat(32)}`, undefined],
    ['a part without "="', `t${NOW},v1=${'ab'.repeat(32)}`, undefined],
    ['a part with an empty name', `=${NOW},v1=${'ab'.repeat(32)}`, undefined],
    ['one part only', `t=${NOW}`, undefined],
    ['an empty header', '', undefined],
  ])('%s', (_label, header, expected) => {
    expect(parseSignatureHeader(header)).toEqual(expected);
  });
});

describe('signBody and computeSignature', () => {
  it('signs at the current time when no timestamp is given', () => {
    const before = Date.now();
    const header = signBody(secret, body);
    const after = Date.now();
    const parsed = parseSignatureHeader(header);
    expect(parsed?.timestamp).toBeGreaterThanOrEqual(before);
    expect(parsed?.timestamp).toBeLessThanOrEqual(after);
    expect(parsed?.v1).toBe(computeSignature(secret, parsed?.timestamp ?? 0, body));
  });

  it('signs exactly the bytes a Uint8Array view shows, not its whole buffer', () => {
    const whole = Buffer.from(`xxxx${body}yyyy`, 'utf8');
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 4, Buffer.byteLength(body));
    expect(computeSignature(secret, NOW, view)).toBe(computeSignature(secret, NOW, body));
    expect(verifySignature(signBody(secret, body, NOW), view, secret, NOW)).toBe('valid');
  });

  it('signs a string as its UTF-8 bytes', () => {
    const text = '{"name":"Zoë"}';
    expect(computeSignature(secret, NOW, text)).toBe(computeSignature(secret, NOW, Buffer.from(text, 'utf8')));
    expect(computeSignature(secret, NOW, text)).toBe(
      createHmac('sha256', secret).update(Buffer.from(`${NOW}.${text}`, 'utf8')).digest('hex'),
    );
  });
});

describe('verifySignature: headers and clock', () => {
  it('checks against the current time when no clock is given', () => {
    expect(verifySignature(signBody(secret, body), body, secret)).toBe('valid');
    expect(verifySignature(signBody(secret, body, Date.now() - 400_000), body, secret)).toBe('stale_timestamp');
  });

  it.each<[string, number, string]>([
    ['no header values', 0, 'missing_signature'],
    ['a repeated header (two valid values)', 2, 'malformed_signature'],
    ['a single valid value sent as a list', 1, 'malformed_signature'],
  ])('%s is %s', (_label, copies, outcome) => {
    const header = Array.from({ length: copies }, () => signBody(secret, body, NOW));
    expect(verifySignature(header, body, secret, NOW)).toBe(outcome);
  });

  it('accepts an upper-case v1 for the right bytes', () => {
    const header = `t=${NOW},v1=${computeSignature(secret, NOW, body).toUpperCase()}`;
    expect(verifySignature(header, body, secret, NOW)).toBe('valid');
  });

  it('an invalid signature is invalid even when it is fresh and well-formed', () => {
    const wrong = computeSignature(secret, NOW, body).replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(verifySignature(`t=${NOW},v1=${wrong}`, body, secret, NOW)).toBe('invalid_signature');
  });
});

describe('signatureAge', () => {
  it.each<[string, string | undefined, number | undefined]>([
    ['signed 1.5 s before', `t=${NOW - 1_500},v1=${'a'.repeat(64)}`, 1_500],
    ['signed at the moment', `t=${NOW},v1=${'a'.repeat(64)}`, 0],
    ['signed 2 s in the future (negative)', `t=${NOW + 2_000},v1=${'a'.repeat(64)}`, -2_000],
    ['stale but well-formed', `t=${NOW - 900_000},v1=${'a'.repeat(64)}`, 900_000],
    ['no header', undefined, undefined],
    ['a malformed header', `t=${NOW}`, undefined],
    ['an empty header', '', undefined],
  ])('%s → %s', (_label, header, age) => {
    expect(signatureAge(header, NOW)).toBe(age);
  });

  it('measures against the current time when no clock is given', () => {
    const signedAt = Date.now() - 60_000;
    const age = signatureAge(`t=${signedAt},v1=${'a'.repeat(64)}`);
    expect(age).toBeGreaterThanOrEqual(60_000);
    expect(age).toBeLessThan(70_000);
  });
});
