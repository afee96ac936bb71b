import { describe, expect, it } from 'vitest';
import { createRateLimiter, type Rate } from '../../../src/emulator/rate-limiter.js';

/** At `atMs`, a take is allowed ('ok') or refused with this Retry-After in seconds. */
type Step = [atMs: number, expected: 'ok' | number];

const HOUR = 3_600_000;
const times = (count: number, step: Step): Step[] => Array.from({ length: count }, () => step);

/** Asking every second for a token due after 6 minutes (10 an hour): the wait counts down to 1, then it is back. */
const countdown: Step[] = [
  [0, 'ok'],
  ...Array.from({ length: 359 }, (_, i): Step => [(i + 1) * 1_000, 360 - (i + 1)]),
  [360_000, 'ok'],
  [360_000, 360],
];

describe('createRateLimiter', () => {
  it.each<[string, Rate, Step[]]>([
    ["the docs' 60 an hour, bursts of 10: ten at once, the 11th waits a minute", { perHour: 60, burst: 10 }, [...times(10, [0, 'ok']), [0, 60]]],
    [
      'a refused take costs nothing, and the token is back when Retry-After said',
      { perHour: 60, burst: 1 },
      [[0, 'ok'], [0, 60], [0, 60], [30_000, 30], [59_000, 1], [60_000, 'ok'], [60_000, 60]],
    ],
    [
      'refills up to the burst and no further',
      { perHour: 60, burst: 2 },
      [[0, 'ok'], [0, 'ok'], [0, 60], [10 * HOUR, 'ok'], [10 * HOUR, 'ok'], [10 * HOUR, 60]],
    ],
    ['a token is back exactly when due, however often it was asked for', { perHour: 10, burst: 1 }, countdown],
    ['Retry-After rounds up to whole seconds', { perHour: 60, burst: 1 }, [[0, 'ok'], [30_500, 30], [30_999, 30], [31_000, 29]]],
    ['Retry-After is at least one second', { perHour: 7_200, burst: 1 }, [[0, 'ok'], [0, 1], [499, 1], [500, 'ok']]],
    ['perHour 0 never refills and says an hour', { perHour: 0, burst: 1 }, [[0, 'ok'], [0, 3_600], [10 * HOUR, 3_600]]],
    ['burst 0 never allows', { perHour: 60, burst: 0 }, [[0, 60], [HOUR, 60]]],
    [
      'a clock that goes back refills nothing, then or once it catches up',
      { perHour: 60, burst: 1 },
      [[0, 'ok'], [-30_000, 60], [0, 60], [59_999, 1], [60_000, 'ok']],
    ],
  ])('%s', (_name, rate, steps) => {
    let clock = 0;
    const limiter = createRateLimiter(rate, () => clock);
    const seen = steps.map(([at]) => {
      clock = at;
      const decision = limiter.take();
      return [at, decision.allowed ? 'ok' : decision.retryAfterSeconds];
    });
    expect(seen).toEqual(steps);
  });

  it('starts full at the clock it was made with', () => {
    let clock = 1_750_000_000_000;
    const limiter = createRateLimiter({ perHour: 60, burst: 1 }, () => clock);
    expect(limiter.take()).toEqual({ allowed: true });
    clock += 59_000;
    expect(limiter.take()).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });
});
