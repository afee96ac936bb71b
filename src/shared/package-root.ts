import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of median-dev's package.json, found upward from `moduleUrl` (a
 * module's `import.meta.url`). The files the package ships beside its code
 * (the inspector's built page, the compiled examples) are found from it, so
 * they resolve the same from the TypeScript sources (tests), the compiled
 * modules (dist/src/…) and the bundled CLI (dist/bin/…), wherever each put
 * the module; relative URLs would differ between the three. A package.json
 * that names no package is passed over: dist/bin/package.json only says the
 * bundle's files are CommonJS (rolldown.config.mjs).
 */
export function packageRoot(moduleUrl: string | URL): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (namesAPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return start; // no package.json above: a copy of the files alone, laid out as in the package
  }
}

function namesAPackage(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false; // none here (or unreadable): look further up
  }
  try {
    const name = (JSON.parse(text) as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '';
  } catch {
    return false; // not JSON: not a package's manifest
  }
}
