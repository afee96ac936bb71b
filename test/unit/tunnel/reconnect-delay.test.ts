import { describe, expect, it } from 'vitest';
import { reconnectDelayMs } from '../../../src/tunnel/index.js';

describe('reconnectDelayMs', () => {
  it.each([
    // attempt, random, expected
    [0, 1, 1000],
    [1, 1, 2000],
    [2, 1, 4000],
    [3, 1, 8000],
    [4, 1, 10_000],
    [50, 1, 10_000],
    [0, 0, 750],
    [4, 0, 7500],
    [2, 0.5, 3500],
  ])('attempt %i with random %d waits %i ms', (attempt, random, expected) => {
    expect(reconnectDelayMs(attempt, { random: () => random })).toBe(expected);
  });

  it.each([
    [0, { baseMs: 10, maxMs: 40 }, 10],
    [3, { baseMs: 10, maxMs: 40 }, 40],
    [-1, { baseMs: 10, maxMs: 40 }, 10],
    [2, { baseMs: 50, maxMs: 10 }, 50],
  ])('attempt %i with %o waits %i ms at most', (attempt, options, expected) => {
    expect(reconnectDelayMs(attempt, { ...options, random: () => 1 })).toBe(expected);
  });

  it('stays within [3/4, 1] of the capped delay for any random value', () => {
    for (let attempt = 0; attempt < 8; attempt += 1) {
      for (const random of [0, 0.1, 0.5, 0.99, 1, 7, -3]) {
        const capped = Math.min(10_000, 1000 * 2 ** attempt);
        const delay = reconnectDelayMs(attempt, { random: () => random });
        expect(delay).toBeGreaterThanOrEqual(capped * 0.75);
        expect(delay).toBeLessThanOrEqual(capped);
      }
    }
  });
});
