import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/shared/package-root.js';
import { useTempDir } from '../../helpers/e2e-world.js';

describe('packageRoot: the package folder, from wherever a module of it sits', () => {
  it.each([
    ['the bundled CLI', 'dist/bin/median-dev.js'],
    ['a chunk of the bundle', 'dist/bin/chunks/cli-AbC123.js'],
    ['an unbundled compiled module', 'dist/src/inspector-server/static-assets.js'],
    ['a TypeScript source (tests)', 'src/inspector-server/static-assets.ts'],
  ])('%s', async (_, file) => {
    const root = join(await useTempDir('median-dev-package-root-'), 'node_modules', 'median-dev');
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{"name":"median-dev"}');
    await writeFile(join(root, file), '');
    // The bundle's own marker (its files are CommonJS) names no package: passed over.
    if (file.startsWith('dist/bin/')) await writeFile(join(root, 'dist/bin/package.json'), '{"type":"commonjs"}');
    expect(packageRoot(pathToFileURL(join(root, file)))).toBe(root);
    expect(packageRoot(pathToFileURL(join(root, file)).href)).toBe(root);
  });
});
