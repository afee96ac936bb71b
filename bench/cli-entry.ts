/**
 * The CLI the benches spawn: package.json's bin (the bundled
 * dist/bin/median-dev.js), so a bench times what users run.
 * MEDIAN_DEV_BENCH_CLI, a path from the repository's root, names another
 * build of it instead (dist/src/cli/main.js: the unbundled modules), to
 * compare the two.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, from the compiled bench (dist/bench/). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function binOf(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return pkg.bin['median-dev']!;
}

export const CLI_ENTRY = resolve(REPO_ROOT, process.env.MEDIAN_DEV_BENCH_CLI || binOf());
