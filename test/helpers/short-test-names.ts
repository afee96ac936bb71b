import { beforeEach } from 'vitest';

/**
 * A test's name is a label, never its data. `it.each` with `%s`/`%j` of a
 * 100 KB body once made names of 100,000 characters: Stryker's vitest runner
 * joins the names of the tests covering a mutant into one RegExp, V8 refused
 * it ("Invalid regular expression"), and the runner crashed printing that
 * error, so 155 mutants went unmeasured. Name the row; keep the data in it.
 */
export const MAX_TEST_NAME_CHARS = 300;

beforeEach(({ task }) => {
  if (task.name.length > MAX_TEST_NAME_CHARS) {
    throw new Error(
      `This test's name is ${task.name.length} characters (the most is ${MAX_TEST_NAME_CHARS}): name the case with a short label, not with its data (use '%s' of a label in it.each).`,
    );
  }
});
