// Mutation testing (`npm run test:mutation`, not part of `npm test`): it
// changes one operator, condition or string at a time in the modules below
// and checks that some test fails. A mutant that survives is a behaviour no
// test pins down. Equivalent mutants are marked in the source with a
// `// Stryker disable next-line <mutator>: <why it is equivalent>` comment.
//
// `npm run test:mutation` builds first: the sandbox is a copy of the project,
// dist/ included, so the CLI tests that start the built program still run.
// While iterating on one module: `npx stryker run --mutate src/median/verdict.ts`.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/config/env-file-editor.ts',
    'src/shared/secret-masker.ts',
    'src/shared/visitor-redaction.ts',
    'src/shared/secret-spellings.ts',
    'src/shared/output-sanitiser.ts',
    'src/median/signature.ts',
    'src/median/verdict.ts',
  ],
  // Two cores on the machines we measure on.
  concurrency: 2,
  timeoutMS: 20_000,
  // The scores the project holds itself to (BENCHMARKS.md); below 90 % fails.
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Reruns only mutants whose module or covering tests changed.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  // Another run's sandbox (a second --tempDirName while iterating) is no input.
  ignorePatterns: ['/.stryker-tmp*'],
  cleanTempDir: 'always',
};
