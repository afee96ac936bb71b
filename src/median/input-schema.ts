import { INVALID_INPUT_MESSAGES } from './messages.js';

type InputMessages = typeof INVALID_INPUT_MESSAGES;

/**
 * Checks a tool input against the tool's `inputSchema` from the manifest the
 * way the route's validation does (tool-errors.txt: invalid_input messages
 * name the first failing field; no type coercion; null counts as absent).
 * Declared fields in declaration order first, then unexpected ones. Pure, so
 * the browser inspector's replay editor runs it too.
 */
export type InputSchemaCheck = { ok: true } | { ok: false; message: string };

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
}

function typeProblem(name: string, schema: PropertySchema, value: unknown, MESSAGES: InputMessages): string | undefined {
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v): v is string => typeof v === 'string');
    return typeof value === 'string' && values.includes(value) ? undefined : MESSAGES.mustBeOneOf(name, values);
  }
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' ? undefined : MESSAGES.mustBeString(name);
    case 'number':
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : MESSAGES.mustBeNumber(name);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : MESSAGES.mustBeBoolean(name);
    default:
      return undefined; // a type the builder does not make: the route decides
  }
}

/** `messages`: the route's wording (default), or Median's own when a teammate runs a tool (RUN_INPUT_MESSAGES). */
export function checkInputAgainstSchema(schema: unknown, input: unknown, MESSAGES: InputMessages = INVALID_INPUT_MESSAGES): InputSchemaCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, message: 'The input must be a JSON object, like {"orderNumber":"A-1001"}.' };
  }
  const object = input as Record<string, unknown>;
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as { properties?: unknown; required?: unknown; additionalProperties?: unknown };
  const properties = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, PropertySchema>;
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  for (const [name, property] of Object.entries(properties)) {
    const given = Object.hasOwn(object, name) ? object[name] : undefined;
    if (given === undefined || given === null) {
      if (required.has(name)) return { ok: false, message: MESSAGES.required(name) };
      continue;
    }
    const problem = typeProblem(name, property ?? {}, given, MESSAGES);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  if (s.additionalProperties === false) {
    const allowed = Object.keys(properties);
    for (const [name, given] of Object.entries(object)) {
      if (Object.hasOwn(properties, name) || given === null) continue;
      return {
        ok: false,
        message: allowed.length === 0 && MESSAGES === INVALID_INPUT_MESSAGES ? `Unexpected field "${name}". This tool's input allows no fields.` : MESSAGES.unexpectedField(name, allowed),
      };
    }
  }
  return { ok: true };
}
