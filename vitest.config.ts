import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The process-heavy files (e2e, attacks) go first, longest first once a run
 * has timed them: the 30-second real-time tunnel tests then start at once
 * instead of after every in-process file, and the short in-process files fill
 * the tail. (Vitest's own order puts projects one after the other by name.)
 */
class ProcessesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isProcesses = (spec: TestSpecification) => spec.project.name === 'processes';
    return [...sorted.filter(isProcesses), ...sorted.filter((spec) => !isProcesses(spec))];
  }
}

/**
 * Four files at once on this 2-core machine: the e2e files mostly wait on
 * real child processes and real-time protocol steps, so two workers kept only
 * about one core busy (user + system CPU 207 s over a 206 s run); four ran the
 * same suite in 142 s. MEDIAN_DEV_TEST_WORKERS sets another count (a bigger
 * machine, or a loaded one).
 */
const WORKERS = Number(process.env['MEDIAN_DEV_TEST_WORKERS'] ?? 4);

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Short test names: Stryker matches mutants' tests by a RegExp of their names.
    setupFiles: ['test/helpers/short-test-names.ts', 'test/helpers/fd-double-close.ts'],
    maxWorkers: WORKERS,
    sequence: { sequencer: ProcessesFirst },
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
        // Each fork runs file after file without re-importing vitest, the
        // helpers and src (the files restore what they change, umask too):
        // measured on this machine, 147.6 s isolated, 125.5 s not, CPU
        // 231 s and 182 s.
        extends: true,
        test: { name: 'processes', include: ['test/e2e/**/*.test.ts', 'test/security/**/*.test.ts'], pool: 'forks', isolate: false },
      },
    ],
  },
});
