import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { createSecretMasker, mapStrings } from '../../../src/shared/index.js';
import { KEY, MASKED_KEY, makeRecord } from '../../helpers/make-record.js';

/**
 * The masker against what the network can make of a record: a body nested
 * 200,000 deep, a value nested as deep (JSON.parse builds one from 400 KB),
 * an object 1,000,000 keys wide, and a body of the worst text at the size
 * limit. Each is masked (every spelling of the key gone) within a bound that
 * only linear work meets on a loaded machine, and without a RangeError.
 */
const DEPTH = 200_000;
const LIMIT = 1024 * 1024;
/** Far above linear work at load 20 on this machine (≤ 2 s seen), far below any quadratic one (hours at 1 MiB). */
const BOUND_MS = 15_000;
const SECRET = 'f0e1d2c3'.repeat(8);

/** Every character as a `\uXXXX` escape, in `hex`'s case. */
const escaped = (text: string, upper = false) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');
/** The key raw, escaped in both cases, split by U+200B (raw and as the `\u200b` a sanitiser writes), and the derived secret. */
const SPELLINGS = `"${KEY}" "${escaped(KEY)}" "${escaped(KEY, true)}" "${KEY.slice(0, 15)}\u200b${KEY.slice(15)}" "${KEY.slice(0, 9)}\\u200b${KEY.slice(9)}" ${SECRET}`;

function expectNoSecret(text: string): void {
  const read = text.replaceAll('\u200b', '').replaceAll('\\u200b', '');
  for (const form of [KEY, escaped(KEY), escaped(KEY, true), SECRET]) expect(read.includes(form)).toBe(false);
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

const withBody = (body: string, truncated = false): CallRecord => makeRecord({ request: { method: 'POST', path: '/api/median', headers: {}, body, ...(truncated ? { truncated } : {}) } });

describe('the masker is bounded in depth, width and size', () => {
  it('masks every spelling in a body nested 200,000 deep', () => {
    const body = `{"input":${'['.repeat(DEPTH)}${SPELLINGS}${']'.repeat(DEPTH)}}`;
    const { value, ms } = timed(() => createSecretMasker([KEY, SECRET]).maskToJson(withBody(body)));
    expect(ms).toBeLessThan(BOUND_MS);
    const masked = (JSON.parse(value.json) as CallRecord).request.body;
    expectNoSecret(masked);
    expect(masked.split(MASKED_KEY).length - 1).toBe(5);
    expect(masked.startsWith(`{"input":${'['.repeat(DEPTH)}`)).toBe(true);
  });

  it('masks a value nested 200,000 deep without a RangeError', () => {
    let deep: unknown = { note: SPELLINGS };
    for (let i = 0; i < DEPTH; i++) deep = [deep];
    const { value, ms } = timed(() => createSecretMasker([KEY, SECRET]).maskRecord({ ...makeRecord(), extra: deep }));
    expect(ms).toBeLessThan(BOUND_MS);
    let inner: unknown = value.extra;
    let depth = 0;
    for (; Array.isArray(inner); depth++) inner = inner[0];
    expect(depth).toBe(DEPTH);
    expectNoSecret((inner as { note: string }).note);
  });

  it('masks an object 1,000,000 keys wide, its names too, and keeps every key', () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 1_000_000; i++) headers[`x-h${i}`] = i % 10_000 === 0 ? `Bearer-ish ${KEY}` : 'v';
    headers[`x-${KEY}`] = '1';
    // A name JSON.parse gives as an own key, as a record read back from the store would have it: kept as a key.
    Object.defineProperty(headers, '__proto__', { value: KEY, enumerable: true, writable: true, configurable: true });
    const record = makeRecord({ request: { method: 'POST', path: '/api/median', headers, body: '' } });
    const { value, ms } = timed(() => createSecretMasker([KEY]).maskRecord(record));
    expect(ms).toBeLessThan(BOUND_MS * 4);
    const names = Object.keys(value.request.headers);
    expect(names).toHaveLength(1_000_002);
    expect(names).toContain(`x-${MASKED_KEY}`);
    expect(Object.getPrototypeOf(value.request.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value.request.headers, '__proto__')?.value).toBe(MASKED_KEY);
    expect(value.request.headers['x-h10000']).toBe(`Bearer-ish ${MASKED_KEY}`);
    expect(names.some((name) => name.includes(KEY))).toBe(false);
  }, 120_000);

  it('mapStrings copies 200,000 deep and 1,000,000 wide in order', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < DEPTH; i++) deep = { a: deep, b: i };
    let inner = mapStrings(deep, (text) => text.toUpperCase()) as { a: unknown; b: number };
    expect(Object.keys(inner)).toEqual(['a', 'b']);
    for (let i = 0; i < DEPTH; i++) inner = inner.a as typeof inner;
    expect(inner).toBe('BOTTOM');
    const wide = Array.from({ length: 1_000_000 }, (_, i) => `s${i}`);
    const copy = mapStrings(wide, (text) => `${text}!`);
    expect([copy.length, copy[0], copy[999_999]]).toEqual([1_000_000, 's0!', 's999999!']);
  }, 60_000);

  it.each([
    ['the key spelt every way, again and again', SPELLINGS + ' median_key_ "\\\\u0041" '],
    ['invisible characters, raw and as escapes, around the key', `\u200b\\u200b\u2060\\0342\\0200\\0213${KEY}`],
    ['backslashes before escapes', `${'\\'.repeat(4096)}u006d${escaped(KEY)}`],
    ['visitor objects (with --redact-visitor)', `"visitor":{"email":"zoe@example.com","name":"Zoë"} ${KEY} `],
  ])('masks a body at the 1 MiB limit of %s', (_name, unit) => {
    const body = unit.repeat(Math.floor(LIMIT / unit.length));
    const masker = createSecretMasker([KEY, SECRET], { redactVisitor: true });
    const { value, ms } = timed(() => masker.maskToJson(withBody(body, true)));
    expect(ms).toBeLessThan(BOUND_MS);
    const masked = (JSON.parse(value.json) as CallRecord).request.body;
    expectNoSecret(masked);
    expect(masked).toContain(MASKED_KEY);
  });
});
