import { onTestFinished } from 'vitest';

/**
 * Registers a clean-up for the current test, right after the thing is made:
 * `const server = useTeardown(await startX(), (s) => s.close())`.
 */
export function useTeardown<T>(thing: T, close: (thing: T) => unknown): T {
  onTestFinished(async () => {
    await close(thing);
  });
  return thing;
}
