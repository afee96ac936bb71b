import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The tests Stryker runs against each mutant: unit and integration. The e2e
// suite drives the built CLI end to end (it cannot see a mutant in src/) and
// takes minutes, so it is left out. MUTATION_TESTS=unit narrows the run to
// the unit tests: minutes instead of an hour while iterating on one module
// (its score can only be lower than the full run's). (mergeConfig would
// append to `include`, so the base test options are spread instead.)
const unitOnly = process.env['MUTATION_TESTS'] === 'unit';
// npm test's projects (in-process threads, process-heavy forks) are left out:
// Stryker runs one isolated file set of its own.
const { projects: _projects, ...baseTest } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    include: unitOnly ? ['test/unit/**/*.test.ts'] : ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    // The docs tests check links with git, which ignores the sandbox folder
    // Stryker copies the project into; they test no code a mutant can change.
    exclude: [...configDefaults.exclude, 'test/unit/docs/**'],
  },
});
