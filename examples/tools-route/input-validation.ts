import { INVALID_INPUT_MESSAGES as MESSAGES } from '../../src/median/messages.js';
import type { Field, FieldMap } from './field-builder.js';

/**
 * Validates a tool call's input against the tool's fields the way `median()`
 * does (tool-errors.txt, "Route responses"): the message names the first
 * failing field, types are never coerced, and `null` counts as absent.
 * Declared fields are checked in declaration order, then unexpected ones.
 */
export type InputCheck = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

function typeProblem(name: string, field: Field, value: unknown): string | undefined {
  switch (field.kind) {
    case 'string':
      return typeof value === 'string' ? undefined : MESSAGES.mustBeString(name);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : MESSAGES.mustBeNumber(name);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : MESSAGES.mustBeBoolean(name);
    case 'enum': {
      const values = field.values ?? [];
      return typeof value === 'string' && values.includes(value)
        ? undefined
        : MESSAGES.mustBeOneOf(name, values);
    }
  }
}

function unexpectedField(name: string, fields: FieldMap): string {
  const allowed = Object.keys(fields);
  return allowed.length === 0
    ? `Unexpected field "${name}". This tool's input allows no fields.`
    : MESSAGES.unexpectedField(name, allowed);
}

/** The input with nulls dropped, or the message for the first failing field. */
export function validateInput(fields: FieldMap, input: Record<string, unknown>): InputCheck {
  const value: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const given = Object.hasOwn(input, name) ? input[name] : undefined;
    if (given === undefined || given === null) {
      if (!field.isOptional) return { ok: false, message: MESSAGES.required(name) };
      continue;
    }
    const problem = typeProblem(name, field, given);
    if (problem !== undefined) return { ok: false, message: problem };
    value[name] = given;
  }
  for (const [name, given] of Object.entries(input)) {
    if (Object.hasOwn(fields, name) || given === null) continue;
    return { ok: false, message: unexpectedField(name, fields) };
  }
  return { ok: true, value };
}
