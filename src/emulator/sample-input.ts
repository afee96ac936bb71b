import type { InputSchema } from '../median/index.js';

/** A source of randomness in [0, 1): Math.random, or a seeded one in tests. */
export type Random = () => number;

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Torvalds', 'Hamilton'];
const WORDS = ['blue', 'large', 'express', 'refund', 'gift', 'annual', 'standard'];

function pick<T>(items: readonly T[], random: Random): T {
  return items[Math.floor(random() * items.length) % items.length] as T;
}

function digits(count: number, random: Random): string {
  let out = String(1 + Math.floor(random() * 9));
  while (out.length < count) out += String(Math.floor(random() * 10));
  return out;
}

/** A plausible string for a field, guessed from its name and format. */
function sampleString(field: string, schema: Record<string, unknown>, random: Random): string {
  const name = field.toLowerCase();
  const format = typeof schema.format === 'string' ? schema.format : '';
  const first = pick(FIRST_NAMES, random);
  const last = pick(LAST_NAMES, random);
  let value: string;
  if (format === 'email' || name.includes('email')) value = `${first}.${last}@example.com`.toLowerCase();
  else if (format === 'date' || name.endsWith('date') || name === 'day') value = new Date(Date.UTC(2025, Math.floor(random() * 12), 1 + Math.floor(random() * 28))).toISOString().slice(0, 10);
  else if (format === 'date-time' || /[a-z]At$/.test(field) || name.includes('time')) value = new Date(Date.UTC(2025, 5, 1 + Math.floor(random() * 28), 9 + Math.floor(random() * 8))).toISOString();
  else if (format === 'uri' || name.includes('url')) value = `https://example.com/${pick(WORDS, random)}`;
  else if (name.includes('order')) value = `A-${digits(5, random)}`;
  else if (name.includes('invoice')) value = `INV-${digits(6, random)}`;
  else if (name.includes('tracking')) value = `1Z${digits(10, random)}`;
  else if (name.includes('sku') || name.includes('product')) value = `SKU-${digits(4, random)}`;
  else if (name.includes('phone')) value = `+1 555 01${digits(2, random)}`;
  else if (name.includes('zip') || name.includes('postal')) value = digits(5, random);
  else if (name.includes('country')) value = pick(['US', 'DE', 'FR', 'GB'], random);
  else if (name.includes('currency')) value = pick(['USD', 'EUR', 'GBP'], random);
  else if (name.endsWith('id')) value = `${name.replace(/id$/, '') || 'id'}_${digits(6, random)}`;
  else if (name.includes('name')) value = `${first} ${last}`;
  else if (name.includes('path')) value = `/${pick(WORDS, random)}`;
  else if (name.includes('reason') || name.includes('message') || name.includes('note') || name.includes('question')) {
    value = `The ${pick(WORDS, random)} order arrived late.`;
  } else value = pick(WORDS, random);
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  while (value.length < min) value += 'x';
  return value.slice(0, Math.max(min, Math.min(max, value.length)));
}

/**
 * A number within the schema's bounds: an integer for `integer`, and for
 * `number` a whole one when the field is not money and a whole number fits
 * the bounds, else one with two decimals (`amount`, `price`, or a range such
 * as 0 < x < 1). Bounds that contradict each other give the lower one.
 */
function sampleNumber(field: string, schema: Record<string, unknown>, random: Random): number {
  const name = field.toLowerCase();
  const integer = schema.type === 'integer';
  let min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  let max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + (integer ? 1 : 0.01);
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - (integer ? 1 : 0.01);
  const isMoney = name.includes('amount') || name.includes('price');
  const lo = min ?? (isMoney ? 5 : 1);
  const hi = max ?? (name.includes('day') ? 30 : name.includes('quantity') || name.includes('count') ? 5 : lo + 99);
  const value = lo + random() * Math.max(0, hi - lo);
  const wholeFits = Math.ceil(lo) <= Math.floor(hi);
  if (integer || (!isMoney && wholeFits)) {
    if (!wholeFits) return Math.ceil(lo);
    return Math.min(Math.max(Math.round(value), Math.ceil(lo)), Math.floor(hi));
  }
  if (hi < lo) return lo;
  return Math.min(Math.max(Math.round(value * 100) / 100, lo), hi);
}

function sampleValue(field: string, schema: Record<string, unknown>, random: Random): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return pick(schema.enum as unknown[], random);
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'number':
    case 'integer':
      return sampleNumber(field, { ...schema, type }, random);
    case 'boolean':
      return random() < 0.5;
    case 'string':
    default:
      return sampleString(field, schema, random);
  }
}

/**
 * A plausible input for a tool, built from its inputSchema: every required
 * field, and each optional one half of the time. Strings follow the field's
 * name (an `orderNumber` looks like `A-10042`), numbers its bounds, enums
 * pick one of their values.
 */
export function sampleInput(schema: InputSchema | undefined, random: Random = Math.random): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const properties = schema?.properties ?? {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  for (const [field, fieldSchema] of Object.entries(properties)) {
    if (!required.has(field) && random() < 0.5) continue;
    input[field] = sampleValue(field, typeof fieldSchema === 'object' && fieldSchema !== null ? fieldSchema : {}, random);
  }
  return input;
}
