import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'tools-route');

/** Each `import … from '…'` of src/ in the example route's files, as `file → specifier`. */
function srcImports(): string[] {
  const found: string[] = [];
  for (const name of readdirSync(EXAMPLE).filter((n) => n.endsWith('.ts'))) {
    const info = ts.preProcessFile(readFileSync(join(EXAMPLE, name), 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      if (ref.fileName.includes('/src/')) found.push(`${name} → ${ref.fileName}`);
    }
  }
  return found;
}

describe('the example route (the dev server of `npm run demo` and the benches)', () => {
  // Its process loads what it imports before it listens, and `start` waits for that: an area's
  // index.ts brings every module of the area (61 ES modules against 23 through the modules it
  // uses; ~20 ms of a start on a 2-core machine, BENCHMARKS.md).
  it('imports each thing of src/ from its own module, never an area index.ts', () => {
    const imports = srcImports();
    expect(imports.length).toBeGreaterThan(5); // the list was read
    expect(imports.filter((line) => /\/index\.js$/.test(line))).toEqual([]);
  });
});
