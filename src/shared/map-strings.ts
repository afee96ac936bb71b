/** A copy of a JSON-like value (a record, an event) with every string replaced by `map(string)`. */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  const walk = (inner: unknown): unknown => {
    if (typeof inner === 'string') return map(inner);
    if (Array.isArray(inner)) return inner.map(walk);
    if (inner !== null && typeof inner === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(inner)) copy[name] = walk(item);
      return copy;
    }
    return inner;
  };
  return walk(value) as T;
}
