import { defineConfig } from 'vitest/config';

/**
 * `npm run test:ci-like`: a fresh clone of a sample project with committed
 * median-calls/, median-dev installed offline from its packed tarball, then
 * `median-dev test -- node server.js`. Not part of `npm test` (packing and
 * installing take longer than a unit of the suite should); .ci/run runs it.
 */
export default defineConfig({
  test: {
    include: ['test/ci-like/**/*.ci.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
