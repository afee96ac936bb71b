import { describe, expect, it } from 'vitest';
import { reconnectDelayMs, reopenDelayMs } from '../../../src/tunnel/index.js';

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

describe('reopenDelayMs', () => {
  it.each([
    // failures since the loss, losses just before it, expected (random 1)
    [0, 0, 200],
    [1, 0, 1000],
    [2, 0, 2000],
    [3, 0, 4000],
    [6, 0, 10_000],
    // A flapping tunnel: no quick try, and the backoff starts further up.
    [0, 1, 2000],
    [1, 1, 4000],
    [0, 2, 4000],
    [0, 9, 10_000],
    // Nonsense counts are read as zero.
    [-3, -1, 200],
  ])('%i failures after a loss with %i losses before it wait %i ms', (failures, recentLosses, expected) => {
    expect(reopenDelayMs(failures, recentLosses, { random: () => 1 })).toBe(expected);
  });

  it.each([
    [0, 0, { quickMs: 40 }, 30],
    [1, 0, { quickMs: 40, baseMs: 20 }, 15],
    [0, 1, { quickMs: 40, baseMs: 20 }, 30],
  ])('%i failures, %i losses before, with %o wait %i ms with the lowest jitter', (failures, recentLosses, options, expected) => {
    expect(reopenDelayMs(failures, recentLosses, { ...options, random: () => 0 })).toBe(expected);
  });
});
