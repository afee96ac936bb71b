import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the inspector in the system Chromium, against the
 * demo. Not part of `npm test` (which passes on a machine without a browser).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One browser at a time: they are heavy on a small machine.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
