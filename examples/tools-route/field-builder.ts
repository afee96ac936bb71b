import type { InputSchema } from '../../src/median/protocol.js';

/**
 * A tiny input-field builder like the one in @mediansh/agent-tools:
 * `p.string()`, `p.number()`, `p.boolean()`, `p.enum([...])`, each with
 * `.optional()` and `.describe(text)`. Fields are immutable; every call
 * returns a new field. The manifest's JSON Schema is built from them.
 */

/** Marks a field as made by this builder (a Load error names fields that are not). */
export const FIELD_BRAND: unique symbol = Symbol.for('median.tools-route.field');

export type FieldKind = 'string' | 'number' | 'boolean' | 'enum';

export interface Field<T = unknown, Optional extends boolean = boolean> {
  readonly [FIELD_BRAND]: true;
  readonly kind: FieldKind;
  /** The allowed values of a `p.enum()` field. */
  readonly values: readonly string[] | undefined;
  readonly isOptional: Optional;
  readonly description: string | undefined;
  /** Never set: carries the value type for `InputOf`. */
  readonly valueType?: T;
  optional(): Field<T, true>;
  describe(text: string): Field<T, Optional>;
}

export type FieldMap = Record<string, Field>;

type RequiredKeys<F extends FieldMap> = { [K in keyof F]: F[K]['isOptional'] extends false ? K : never }[keyof F];
type OptionalKeys<F extends FieldMap> = Exclude<keyof F, RequiredKeys<F>>;
type ValueOf<X> = X extends Field<infer T> ? T : never;

/** The input object `execute` receives for a map of fields. */
export type InputOf<F extends FieldMap> = { [K in RequiredKeys<F>]: ValueOf<F[K]> } & {
  [K in OptionalKeys<F>]?: ValueOf<F[K]>;
};

interface FieldState {
  kind: FieldKind;
  values: readonly string[] | undefined;
  isOptional: boolean;
  description: string | undefined;
}

function makeField<T, Optional extends boolean>(state: FieldState): Field<T, Optional> {
  return Object.freeze({
    [FIELD_BRAND]: true as const,
    kind: state.kind,
    values: state.values,
    isOptional: state.isOptional as Optional,
    description: state.description,
    optional: () => makeField<T, true>({ ...state, isOptional: true }),
    describe: (text: string) => makeField<T, Optional>({ ...state, description: text }),
  });
}

function start<T>(kind: FieldKind, values?: readonly string[]): Field<T, false> {
  return makeField<T, false>({ kind, values, isOptional: false, description: undefined });
}

export const p = Object.freeze({
  string: () => start<string>('string'),
  number: () => start<number>('number'),
  boolean: () => start<boolean>('boolean'),
  enum: <const V extends readonly [string, ...string[]]>(values: V) =>
    start<V[number]>('enum', Object.freeze([...values])),
});

/** True when `value` was built with `p`. */
export function isField(value: unknown): value is Field {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FIELD_BRAND] === true;
}

/** The JSON Schema of one field, as the manifest carries it. */
function fieldSchema(field: Field): Record<string, unknown> {
  const schema: Record<string, unknown> =
    field.kind === 'enum' ? { type: 'string', enum: [...(field.values ?? [])] } : { type: field.kind };
  if (field.description !== undefined) schema.description = field.description;
  return schema;
}

/** The manifest's `inputSchema`: a JSON Schema object that allows no other fields. */
export function toInputSchema(fields: FieldMap): InputSchema {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = fieldSchema(field);
    if (!field.isOptional) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
