import { describe, expect, it } from 'vitest';
import { assertMedianKey, deriveToolSecret } from '../../../src/median/index.js';
import { assertApiKey } from '../../../src/emulator/api-auth.js';
import { createKeyRing, generateMedianKey, type KeyRing } from '../../../src/emulator/key-ring.js';

const FIRST = 'median_key_' + 'A'.repeat(32);
const OTHER = 'median_key_' + 'B'.repeat(32);

describe('key ring: one organization, several Median keys', () => {
  it('generates valid, distinct keys', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateMedianKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(() => assertMedianKey(key)).not.toThrow();
  });

  /** Each step acts on a fresh ring and returns the keys that should then be active. */
  it.each<[string, (ring: KeyRing) => string[]]>([
    ['a new ring holds its first key', () => [FIRST]],
    ['create adds a key after the others', (ring) => [FIRST, ring.create(), ring.create()]],
    [
      'revoke drops a key from the active ones',
      (ring) => {
        const created = ring.create();
        ring.revoke(FIRST);
        return [created];
      },
    ],
    [
      'revoking twice is the same as once, and the last key can go too',
      (ring) => {
        ring.revoke(FIRST);
        ring.revoke(FIRST);
        return [];
      },
    ],
  ])('%s', (_name, act) => {
    const ring = createKeyRing(FIRST);
    const expected = act(ring);
    expect(ring.active()).toEqual(expected);
    expect(ring.first).toBe(FIRST);
  });

  it.each<[string, string, boolean, string | undefined]>([
    ['its own key', FIRST, false, FIRST],
    ['a key of another org', OTHER, false, undefined],
    ['a prefix of its key', FIRST.slice(0, -1), false, undefined],
    ['its key once revoked', FIRST, true, undefined],
  ])('matches %s → %s', (_name, token, revoke, expected) => {
    const ring = createKeyRing(FIRST);
    ring.create();
    if (revoke) ring.revoke(FIRST);
    expect(ring.match(token)).toBe(expected);
  });

  it('keeps the signing secret of a revoked key (endpoints it connected still sign with it)', () => {
    const ring = createKeyRing(FIRST);
    ring.revoke(FIRST);
    expect(ring.secretFor(FIRST)).toEqual(deriveToolSecret(FIRST));
    expect(() => ring.secretFor(OTHER)).toThrow(expect.objectContaining({ code: 'unknown_key' }));
  });

  it('refuses to revoke a key the org never held with unknown_key', () => {
    expect(() => createKeyRing(FIRST).revoke(OTHER)).toThrow(expect.objectContaining({ code: 'unknown_key' }));
  });

  it('refuses a malformed first key with invalid_median_key', () => {
    expect(() => createKeyRing('median_key_short')).toThrow(expect.objectContaining({ code: 'invalid_median_key' }));
  });
});

describe('assertApiKey against a key ring', () => {
  const ring = createKeyRing(FIRST);
  const second = ring.create();
  const revoked = ring.create();
  ring.revoke(revoked);

  it.each<[string, string | undefined, string | { code: string; status: number }]>([
    ['the first key', `Bearer ${FIRST}`, FIRST],
    ['a created key', `Bearer ${second}`, second],
    ['a lower-case scheme and spaces', `  bearer   ${second}  `, second],
    ['a revoked key', `Bearer ${revoked}`, { code: 'invalid_api_key', status: 401 }],
    ['another org', `Bearer ${OTHER}`, { code: 'invalid_api_key', status: 401 }],
    ['another scheme', `Basic ${FIRST}`, { code: 'invalid_api_key', status: 401 }],
    ['a legacy key', 'Bearer sk_live_abc', { code: 'legacy_api_key', status: 400 }],
    ['no header', undefined, { code: 'missing_median_key', status: 400 }],
    ['an empty Bearer', 'Bearer ', { code: 'missing_median_key', status: 400 }],
  ])('%s', (_name, header, expected) => {
    if (typeof expected === 'string') expect(assertApiKey(header, ring)).toBe(expected);
    else expect(() => assertApiKey(header, ring)).toThrow(expect.objectContaining(expected));
  });
});
