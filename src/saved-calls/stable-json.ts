export interface StableJsonOptions {
  /**
   * Dotted paths (from the root) below which object keys are sorted; above
   * them the order the value was built in is kept (a file's own layout).
   */
  sortBelow?: readonly string[];
}

function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortedDeep((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

function withSortedParts(value: unknown, path: string, sortBelow: ReadonlySet<string>): unknown {
  if (sortBelow.has(path)) return sortedDeep(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = withSortedParts(inner, path === '' ? key : `${path}.${key}`, sortBelow);
  return out;
}

/**
 * JSON that comes out the same for the same data: two-space indent, and
 * object keys sorted below `sortBelow` (everywhere when it is not given), so
 * a file written again changes only where the data did.
 */
export function stableJson(value: unknown, options: StableJsonOptions = {}): string {
  const shaped = options.sortBelow ? withSortedParts(value, '', new Set(options.sortBelow)) : sortedDeep(value);
  return JSON.stringify(shaped, null, 2);
}

/** The same text for equal JSON values, whatever their key order (for comparing). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedDeep(value));
}

/** An answer's text as JSON, when it is JSON (null: no answer). */
export function jsonText(text: string | null): { ok: true; value: unknown } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
