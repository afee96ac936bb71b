import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of median-dev's package.json, found upward from `moduleUrl` (a
 * module's `import.meta.url`). The files the package ships beside its code
 * (the inspector's built page, the compiled examples) are found from it, so
 * they resolve the same from the TypeScript sources (tests), the compiled
 * modules (dist/src/…) and the bundled CLI (dist/bin/…), wherever each put
 * the module; relative URLs would differ between the three.
 */
export function packageRoot(moduleUrl: string | URL): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return start; // no package.json above: a copy of the files alone, laid out as in the package
  }
}
