import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Short test names: Stryker matches mutants' tests by a RegExp of their names.
    setupFiles: ['test/helpers/short-test-names.ts'],
    // Integration and e2e tests mostly wait on real servers and child
    // processes; the CPU, not the worker count, is what two cores lack.
    maxWorkers: 2,
    projects: [
      {
        // Unit and integration tests run in process (real servers on port 0,
        // children they spawn and await) and clean up after themselves, so
        // one worker thread keeps its imported modules from file to file:
        // measured at load 13-18, test/unit took 39 s CPU on isolated forks
        // and 13 s here, test/integration 60 s and 24 s.
        extends: true,
        test: { name: 'in-process', include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'], pool: 'threads', isolate: false },
      },
      {
        // e2e and attack tests spawn the built CLI; some need a process of
        // their own (process.umask, which a worker thread may not change).
        extends: true,
        test: { name: 'processes', include: ['test/e2e/**/*.test.ts', 'test/security/**/*.test.ts'], pool: 'forks' },
      },
    ],
  },
});
