import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkInputAgainstSchema } from '../../../src/median/index.js';
import { p, toInputSchema, type FieldMap } from '../../../examples/tools-route/field-builder.js';
import { validateInput } from '../../../examples/tools-route/input-validation.js';

const fields: FieldMap = {
  orderNumber: p.string(),
  amount: p.number(),
  express: p.boolean().optional(),
  reason: p.enum(['damaged', 'late']).optional(),
};
const schema = toInputSchema(fields);

describe('an input checked against the manifest inputSchema, in the docs invalid_input words', () => {
  it.each<[string, unknown, string | null]>([
    ['a good input', { orderNumber: 'A1', amount: 3 }, null],
    ['null counts as absent for an optional field', { orderNumber: 'A1', amount: 3, express: null }, null],
    ['a missing required field', { amount: 3 }, 'orderNumber is required.'],
    ['null for a required field', { orderNumber: null, amount: 3 }, 'orderNumber is required.'],
    ['no coercion of a number', { orderNumber: 'A1', amount: '3' }, 'amount must be a number.'],
    ['a string that is a number', { orderNumber: 1, amount: 3 }, 'orderNumber must be a string.'],
    ['a boolean', { orderNumber: 'A1', amount: 3, express: 'yes' }, 'express must be a boolean.'],
    ['an enum', { orderNumber: 'A1', amount: 3, reason: 'lost' }, 'reason must be one of: damaged, late.'],
    ['an unexpected field', { orderNumber: 'A1', amount: 3, colour: 'red' }, 'Unexpected field "colour". This tool\'s input allows: orderNumber, amount, express, reason.'],
    ['the first failing field is named', { amount: 'x' }, 'orderNumber is required.'],
    ['not an object', [1], 'The input must be a JSON object, like {"orderNumber":"A-1001"}.'],
  ])('%s', (_name, input, message) => {
    const check = checkInputAgainstSchema(schema, input);
    expect(check).toEqual(message === null ? { ok: true } : { ok: false, message });
  });

  it('says what the example route (validating as median() does) says, for any input', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('damaged', 'late'));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('orderNumber', 'amount', 'express', 'reason', 'colour'), value), (input) => {
        const route = validateInput(fields, input);
        const ours = checkInputAgainstSchema(schema, input);
        expect(ours).toEqual(route.ok ? { ok: true } : { ok: false, message: route.message });
      }),
    );
  });
});
