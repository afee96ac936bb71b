import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSecretMasker, secretSpellings, urlEncodedSpelling } from '../../../src/shared/index.js';
import { deriveToolSecret, secretsToMask } from '../../../src/median/index.js';

const KEY = 'median_key_' + 'Zq7Xw2Lp'.repeat(4) + 'abcd';
const TOOL_SECRET = 'f0e1d2c3'.repeat(8);

describe('secretSpellings', () => {
  it('lists the secret as is, JSON-escaped (also as ASCII with \\/), URL-encoded, base64 and base64url', () => {
    const secret = 'pä/ss"wörd+more';
    const forms = secretSpellings(secret);
    expect(forms).toContain(secret);
    expect(forms).toContain(JSON.stringify(secret).slice(1, -1));
    expect(forms).toContain('p\\u00e4\\/ss\\"w\\u00f6rd+more');
    expect(forms).toContain(encodeURIComponent(secret));
    expect(forms).toContain(Buffer.from(secret).toString('base64'));
    expect(forms).toContain(Buffer.from(secret).toString('base64url'));
  });

  it('adds the other case and the base64 of the bytes for a hex secret', () => {
    const forms = secretSpellings(TOOL_SECRET);
    expect(forms).toContain(TOOL_SECRET.toUpperCase());
    expect(forms).toContain(Buffer.from(TOOL_SECRET, 'hex').toString('base64'));
  });

  it('lists longest first and nothing shorter than 8 characters', () => {
    const forms = secretSpellings('abcdefgh');
    expect(forms.every((form) => form.length >= 8)).toBe(true);
    expect([...forms].sort((a, b) => b.length - a.length)).toEqual(forms);
  });

  it('finds the secret inside any longer base64 text, whatever the alignment', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 7 }), fc.uint8Array({ maxLength: 7 }), (before, after) => {
        const text = Buffer.concat([Buffer.from(before), Buffer.from(KEY), Buffer.from(after)]).toString('base64');
        const masked = createSecretMasker([KEY]).mask(text);
        // No run of 8 characters that only the key decides is left.
        const cores = secretSpellings(KEY).filter((form) => /^[A-Za-z0-9+/]+$/.test(form) && !form.startsWith('median'));
        for (const core of cores) expect(masked).not.toContain(core);
      }),
    );
  });
});

describe('secretsToMask', () => {
  it('is the key, the secret derived from it (hex) and MEDIAN_TOOL_SECRET', () => {
    expect(secretsToMask({ medianKey: KEY, toolSecret: TOOL_SECRET })).toEqual([KEY, deriveToolSecret(KEY).toString('hex'), TOOL_SECRET]);
    expect(secretsToMask({ medianKey: '', toolSecret: undefined })).toEqual([]);
  });
});

describe('every secret in every spelling', () => {
  const derived = deriveToolSecret(KEY).toString('hex');
  // Built in each test, not while the file is collected, so mutation testing
  // can tell which tests run the masker (see stryker.config.mjs).
  let masker: ReturnType<typeof createSecretMasker>;
  beforeEach(() => {
    masker = createSecretMasker(secretsToMask({ medianKey: KEY, toolSecret: TOOL_SECRET }));
  });
  const spellings = (secret: string) => [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
  ];

  it.each([
    ['the key', KEY],
    ['MEDIAN_TOOL_SECRET', TOOL_SECRET],
    ['the derived secret', derived],
    ['the derived secret in capitals', derived.toUpperCase()],
  ])('masks %s in each spelling, in a record and in text', (_name, secret) => {
    for (const form of spellings(secret)) {
      const text = masker.mask(`before ${form} after`);
      expect(text).not.toContain(form);
      expect(text).toMatch(/^before (?:median_key_)?\*{4}\w{0,4} after$/);
      const record = masker.maskRecord({ request: { body: JSON.stringify({ input: { note: form } }) } });
      expect(JSON.stringify(record)).not.toContain(form);
    }
    const raw = Buffer.from(derived, 'hex').toString('base64');
    expect(masker.mask(`sig ${raw}`)).not.toContain(raw);
  });

  it('masks a secret that contains another one whole, and two that overlap as one stretch', () => {
    const inner = 'abcdefgh12345678';
    const outer = `xx${inner}yyzz`;
    const m = createSecretMasker([inner, outer]);
    expect(m.mask(`<${outer}>`)).toBe(`<${'****'}yyzz>`);
    const left = 'AAAAAAAA1111';
    const right = '1111BBBBBBBB';
    const both = createSecretMasker([left, right]).mask('AAAAAAAA1111BBBBBBBB');
    expect(both).not.toMatch(/A{4}|B{4}|1111/);
  });

  it('never leaves 8 characters of a secret visible, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(KEY, TOOL_SECRET, derived), fc.string(), (before, secret, after) => {
        const masked = masker.mask(`${before}${secret}${after}`);
        expect(masked).not.toContain(secret.slice(0, 12));
        expect(masked).not.toContain(secret.slice(-12, -4));
      }),
    );
  });
});

/**
 * The base64 characters that only `bytes` decide when `before` bytes precede
 * them, found without bit arithmetic: encode once with 0x00 and once with 0xff
 * around them; a character with any bit from the surroundings differs.
 */
function base64CoreByExperiment(bytes: Buffer, before: number, encoding: 'base64' | 'base64url'): string {
  const after = 3 - ((before + bytes.length) % 3);
  const around = (fill: number) => Buffer.concat([Buffer.alloc(before, fill), bytes, Buffer.alloc(after, fill)]).toString(encoding);
  const zeros = around(0x00);
  const ones = around(0xff);
  return [...zeros].filter((char, i) => char === ones[i]).join('');
}

function byteForms(bytes: Buffer): string[] {
  const forms = [bytes.toString('base64'), bytes.toString('base64url')];
  for (const before of [0, 1, 2]) {
    forms.push(base64CoreByExperiment(bytes, before, 'base64'), base64CoreByExperiment(bytes, before, 'base64url'));
  }
  return forms;
}

/** Every spelling the masker must know, built from the encoders themselves. */
function expectedSpellings(secret: string, isHex: boolean): Set<string> {
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = [...json].map((c) => (c.charCodeAt(0) >= 0x7f ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
  const forms = [secret, json, asciiJson, asciiJson.replaceAll('/', '\\/'), encodeURIComponent(secret), ...byteForms(Buffer.from(secret, 'utf8'))];
  if (isHex) {
    for (const cased of [secret.toLowerCase(), secret.toUpperCase()]) forms.push(cased, ...byteForms(Buffer.from(cased, 'utf8')));
    forms.push(...byteForms(Buffer.from(secret, 'hex')));
  }
  return new Set(forms.filter((form) => form.length >= 8));
}

describe('secretSpellings: the exact list', () => {
  it.each<[string, string, boolean]>([
    ['a Median key', KEY, false],
    ['MEDIAN_TOOL_SECRET (hex)', TOOL_SECRET, true],
    ['hex in mixed case', 'A1b2C3d4E5f6A7b8', true],
    ['base64 with + and / in every alphabet and alignment', '>>>???~~~ÿÿÿ', false],
    ['non-ASCII and a slash', 'pä/ss"wörd+more', false],
    ['hex digits then other text', 'a1b2c3d4-not-hex', false],
    ['other text then hex digits', 'not-hex-a1b2c3d4', false],
    ['an odd number of hex digits', 'a1b2c3d4e', false],
    ['eight characters, the shortest secret', 'abcdefgh', false],
  ])('%s', (_label, secret, isHex) => {
    const forms = secretSpellings(secret);
    expect(new Set(forms)).toEqual(expectedSpellings(secret, isHex));
    expect(forms).toHaveLength(new Set(forms).size);
    expect(forms.map((f) => f.length)).toEqual([...forms.map((f) => f.length)].sort((a, b) => b - a));
  });

  it('holds for any secret', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40 }), (secret) => {
        expect(new Set(secretSpellings(secret))).toEqual(expectedSpellings(secret, /^(?:[0-9a-fA-F]{2})+$/.test(secret)));
      }),
    );
  });

  it('holds for any hex secret', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 40 }), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex');
        const secret = upper ? hex.toUpperCase() : hex;
        expect(new Set(secretSpellings(secret))).toEqual(expectedSpellings(secret, true));
      }),
    );
  });
});

describe('urlEncodedSpelling', () => {
  it.each([
    ['plain text', 'a b/c', 'a%20b%2Fc'],
    ['a surrogate pair', 'a\uD83D\uDE80', 'a%F0%9F%9A%80'],
    ['a lone high surrogate, as U+FFFD', 'a\uD800b', 'a%EF%BF%BDb'],
    ['a lone low surrogate, as U+FFFD', '\uDC00x', '%EF%BF%BDx'],
    ['a high surrogate at the end', 'x\uD83D', 'x%EF%BF%BD'],
    ['two high surrogates, then a low', '\uD800\uD83D\uDE80', '%EF%BF%BD%F0%9F%9A%80'],
  ])('%s', (_label, text, encoded) => {
    expect(urlEncodedSpelling(text)).toBe(encoded);
  });

  it('lets a secret with a lone surrogate be masked instead of throwing', () => {
    const secret = 'abcdefgh\uD83D';
    expect(secretSpellings(secret)).toContain('abcdefgh%EF%BF%BD');
    expect(createSecretMasker([secret]).mask(`x ${secret} y`)).toBe('x **** y');
  });
});
