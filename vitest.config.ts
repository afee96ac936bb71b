import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Short test names: Stryker matches mutants' tests by a RegExp of their names.
    setupFiles: ['test/helpers/short-test-names.ts'],
    // Integration and e2e tests start real servers and child processes; two
    // cores do not gain from more than two workers.
    maxWorkers: 2,
  },
});
