import { describe, expect, it } from 'vitest';
import type { InputSchema } from '../../../src/median/index.js';
import { sampleInput } from '../../../src/emulator/sample-input.js';

/** Randomness pinned at the low end, the middle and the top of [0, 1). */
const RANDOMS: ReadonlyArray<[string, () => number]> = [
  ['low', () => 0],
  ['middle', () => 0.5],
  ['high', () => 0.999_999],
];

/** One required field with this schema. */
const only = (field: string, schema: Record<string, unknown>): InputSchema =>
  ({ type: 'object', properties: { [field]: schema }, required: [field], additionalProperties: false }) as InputSchema;

describe('sampleInput: strings follow the field name and format', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['email', { type: 'string' }, /^[a-z]+\.[a-z]+@example\.com$/],
    ['contact', { type: 'string', format: 'email' }, /^[a-z]+\.[a-z]+@example\.com$/],
    ['deliveryDate', { type: 'string' }, /^2025-\d{2}-\d{2}$/],
    ['since', { type: 'string', format: 'date' }, /^2025-\d{2}-\d{2}$/],
    ['createdAt', { type: 'string' }, /^2025-06-\d{2}T\d{2}:00:00\.000Z$/],
    ['pickupTime', { type: 'string' }, /^2025-06-\d{2}T\d{2}:00:00\.000Z$/],
    ['returnUrl', { type: 'string' }, /^https:\/\/example\.com\/[a-z]+$/],
    ['orderNumber', { type: 'string' }, /^A-[1-9]\d{4}$/],
    ['invoice', { type: 'string' }, /^INV-[1-9]\d{5}$/],
    ['trackingCode', { type: 'string' }, /^1Z[1-9]\d{9}$/],
    ['sku', { type: 'string' }, /^SKU-[1-9]\d{3}$/],
    ['productCode', { type: 'string' }, /^SKU-[1-9]\d{3}$/],
    ['phone', { type: 'string' }, /^\+1 555 01[1-9]\d$/],
    ['zip', { type: 'string' }, /^[1-9]\d{4}$/],
    ['country', { type: 'string' }, /^(US|DE|FR|GB)$/],
    ['currency', { type: 'string' }, /^(USD|EUR|GBP)$/],
    ['customerId', { type: 'string' }, /^customer_[1-9]\d{5}$/],
    ['id', { type: 'string' }, /^id_[1-9]\d{5}$/],
    ['fullName', { type: 'string' }, /^[A-Z][a-z]+ [A-Z][a-z]+$/],
    ['path', { type: 'string' }, /^\/[a-z]+$/],
    ['reason', { type: 'string' }, /^The [a-z]+ order arrived late\.$/],
    ['color', { type: 'string' }, /^[a-z]+$/],
    ['untyped', {}, /^[a-z]+$/],
  ])('%s %j → %s', (field, schema, pattern) => {
    for (const [, random] of RANDOMS) {
      expect(sampleInput(only(field, schema), random)[field]).toMatch(pattern);
    }
  });

  it.each<[string, Record<string, unknown>, (value: string) => boolean]>([
    ['minLength pads', { type: 'string', minLength: 20 }, (v) => v.length === 20 && /^[a-z]+x+$/.test(v)],
    ['maxLength cuts', { type: 'string', maxLength: 3 }, (v) => v.length <= 3],
    ['both bounds', { type: 'string', minLength: 2, maxLength: 4 }, (v) => v.length >= 2 && v.length <= 4],
  ])('%s', (_name, schema, holds) => {
    for (const [, random] of RANDOMS) {
      const value = sampleInput(only('color', schema), random).color;
      expect(typeof value === 'string' && holds(value), String(value)).toBe(true);
    }
  });
});

describe('sampleInput: numbers stay within their bounds', () => {
  it.each<[string, Record<string, unknown>, number, number, 'integer' | 'cents']>([
    ['count', { type: 'integer', minimum: 3, maximum: 7 }, 3, 7, 'integer'],
    ['count', { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 4 }, 1, 3, 'integer'],
    ['days', { type: 'integer' }, 1, 30, 'integer'],
    ['quantity', { type: 'number' }, 1, 5, 'integer'],
    ['score', { type: 'number' }, 1, 100, 'integer'],
    ['amount', { type: 'number' }, 5, 104, 'cents'],
    ['price', { type: 'number', minimum: 0.5, maximum: 2 }, 0.5, 2, 'cents'],
    ['ratio', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, 0.01, 0.99, 'cents'],
    ['weight', { type: 'number', minimum: 1.2, maximum: 1.8 }, 1.2, 1.8, 'cents'],
    ['only', { type: ['integer', 'null'], minimum: 4, maximum: 4 }, 4, 4, 'integer'],
  ])('%s %j → within [%d, %d], %s', (field, schema, lo, hi, kind) => {
    for (const [, random] of RANDOMS) {
      const value = sampleInput(only(field, schema), random)[field] as number;
      expect(value).toBeGreaterThanOrEqual(lo);
      expect(value).toBeLessThanOrEqual(hi);
      if (kind === 'integer') expect(Number.isInteger(value)).toBe(true);
      else expect(Math.round(value * 100) / 100).toBe(value);
    }
  });

  it('spreads over the range: the low end at 0, the top at 0.999…', () => {
    const schema = only('count', { type: 'integer', minimum: 3, maximum: 7 });
    expect(sampleInput(schema, () => 0).count).toBe(3);
    expect(sampleInput(schema, () => 0.999_999).count).toBe(7);
  });
});

describe('sampleInput: fields and other types', () => {
  const mixed = {
    type: 'object',
    properties: {
      orderNumber: { type: 'string' },
      size: { type: 'string', enum: ['small', 'medium', 'huge'] },
      kind: { const: 'refund' },
      express: { type: 'boolean' },
    },
    required: ['orderNumber'],
    additionalProperties: false,
  } as InputSchema;

  it.each<[string, InputSchema | undefined, () => number, Record<string, unknown>]>([
    ['no schema gives no fields', undefined, () => 0.5, {}],
    ['no properties gives no fields', { type: 'object', properties: {}, additionalProperties: false } as InputSchema, () => 0.5, {}],
    ['optional fields are left out when the coin says so', mixed, () => 0.25, { orderNumber: expect.stringMatching(/^A-\d{5}$/) }],
    [
      'optional fields come in otherwise: enums pick, const is kept, booleans flip',
      mixed,
      () => 0.75,
      { orderNumber: expect.stringMatching(/^A-\d{5}$/), size: 'huge', kind: 'refund', express: false },
    ],
  ])('%s', (_name, schema, random, expected) => {
    expect(sampleInput(schema, random)).toEqual(expected);
  });

  it.each<[string, number, unknown]>([
    ['the first enum value at 0', 0, 'small'],
    ['the last enum value near 1', 0.999_999, 'huge'],
  ])('picks %s', (_name, r, value) => {
    expect(sampleInput(only('size', { type: 'string', enum: ['small', 'medium', 'huge'] }), () => r).size).toBe(value);
  });

  it.each<[number, boolean]>([
    [0.25, true],
    [0.75, false],
  ])('a boolean at random %d is %s', (r, value) => {
    expect(sampleInput(only('express', { type: 'boolean' }), () => r).express).toBe(value);
  });

  it('treats a field schema that is not an object as an untyped string', () => {
    const schema = { type: 'object', properties: { note: true }, required: ['note'], additionalProperties: false } as unknown as InputSchema;
    expect(sampleInput(schema, () => 0.5).note).toMatch(/^The [a-z]+ order arrived late\.$/);
  });
});
