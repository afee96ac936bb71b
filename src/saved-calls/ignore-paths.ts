import { canonicalJson } from './stable-json.js';

/**
 * Paths into an answer's JSON, as `ignore` holds them: keys joined by `.`
 * from the body's root (`result.eta`), `*` for any key or array index
 * (`result.items.*.id`). A path names the value there and all below it.
 */
export const IGNORED = '‹ignored›';

function segmentsOf(path: string): string[] {
  return path.split('.').filter((s) => s !== '');
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => segment === '*' || segment === path[i]);
}

/** The value with every ignored path's value replaced by `‹ignored›` (a deep copy), on both sides of a comparison. */
export function withIgnored(value: unknown, ignore: readonly string[]): unknown {
  const patterns = ignore.map(segmentsOf).filter((p) => p.length > 0);
  if (patterns.length === 0) return value;
  const walk = (node: unknown, path: string[]): unknown => {
    if (patterns.some((p) => matches(p, path))) return IGNORED;
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, String(i)]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };
  return walk(value, []);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Where two answers to the same call differ: the noise (Keploy's idea: send
 * twice, what differs is not the route's behaviour). Array indexes become
 * `*`, so a timestamp in every item is one path. A value that differs in
 * type or an array that differs in length is one path, not its insides.
 */
export function findNoise(a: unknown, b: unknown): string[] {
  const found = new Set<string>();
  const walk = (x: unknown, y: unknown, path: string[]): void => {
    if (isObject(x) && isObject(y)) {
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) walk(x[key], y[key], [...path, key]);
      return;
    }
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length) {
      x.forEach((item, i) => walk(item, y[i], [...path, '*']));
      return;
    }
    if (canonicalJson(x) !== canonicalJson(y)) found.add(path.join('.'));
  };
  walk(a, b, []);
  // The whole body differing (no path) is not noise a path can name.
  found.delete('');
  return [...found].sort();
}
