import { defineConfig } from 'vitest/config';

/**
 * `npm run test:frameworks`: median-dev with real dev servers (Next.js),
 * installed from the registry at test time. Not part of `npm test`, which
 * runs offline.
 */
export default defineConfig({
  test: {
    include: ['test/frameworks/**/*.framework.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    // One dev server at a time: each compiles on both cores.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
