import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deriveToolSecret,
  resolveToolSecret,
  signBody,
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
