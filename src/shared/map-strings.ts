/**
 * A copy of a JSON-like value (a record, an event) with every string replaced
 * by `map(string, key)`, `key` being the name of the property that holds it
 * (for an array's items, the array's). With `mapKey`, property names are
 * mapped too. The walk keeps its own stack, not the call stack: a value
 * nested 200,000 deep (JSON.parse makes one from 400 KB of brackets) is
 * copied, not a RangeError. Property order is kept; a `__proto__` key stays
 * a key (Object.fromEntries defines it).
 */
export function mapStrings<T>(value: T, map: (text: string, key: string | undefined) => string, options: { mapKey?: (name: string) => string } = {}): T {
  const root: unknown[] = [undefined];
  const pending: Task[] = [{ from: value, into: root, at: 0, key: undefined }];
  for (let task = pending.pop(); task !== undefined; task = pending.pop()) {
    if ('names' in task) {
      // Every value of this object is done (its tasks were above this one).
      task.into[task.at] = Object.fromEntries(task.names.map((name, i) => [name, task.values[i]]));
      continue;
    }
    const { from, into, at, key } = task;
    if (typeof from === 'string') {
      into[at] = map(from, key);
    } else if (Array.isArray(from)) {
      const copy: unknown[] = new Array<unknown>(from.length);
      into[at] = copy;
      for (let i = from.length - 1; i >= 0; i--) pending.push({ from: from[i], into: copy, at: i, key });
    } else if (from !== null && typeof from === 'object') {
      const names = Object.keys(from);
      const values: unknown[] = new Array<unknown>(names.length);
      pending.push({ names: options.mapKey ? names.map(options.mapKey) : names, values, into, at });
      for (let i = names.length - 1; i >= 0; i--) pending.push({ from: (from as Record<string, unknown>)[names[i]!], into: values, at: i, key: names[i] });
    } else {
      into[at] = from;
    }
  }
  return root[0] as T;
}

type Task =
  | { from: unknown; into: unknown[]; at: number; key: string | undefined }
  /** Builds an object once its values are mapped. */
  | { names: string[]; values: unknown[]; into: unknown[]; at: number };
