// The resolve hook of record-imports.mjs (runs on Node's loader thread): records each resolved URL.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (file) appendFileSync(file, `${resolved.url} ${context.parentURL ?? ""}\n`);
  return resolved;
}
