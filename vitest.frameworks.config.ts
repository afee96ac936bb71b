import { defineConfig } from 'vitest/config';

/**
 * `npm run test:frameworks`: median-dev with real dev servers (Next.js 16
 * with Turbopack and webpack, SvelteKit, Nuxt, Express under node --watch,
 * Hono under tsx watch), installed from the registry at test time, each
 * with its route from examples/frameworks. Not part of `npm test`, which
 * runs offline. MEDIAN_DEV_FRAMEWORKS=next,nuxt runs some of them.
 */
export default defineConfig({
  test: {
    include: ['test/frameworks/**/*.framework.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    // One dev server at a time: each compiles on both cores.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
