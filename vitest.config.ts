import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration and e2e tests start real servers and child processes; two
    // cores do not gain from more than two workers.
    maxWorkers: 2,
  },
});
