import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWorkInterval } from '../../../src/shared/work-interval.js';

// Node's timers under vitest's fake clock: the interval's ticks are counted without waiting for them.
describe('createWorkInterval: a repeating timer only while there is work', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs while there is work, stops on the first tick without, and starts again on new work', () => {
    let work = 1;
    const run = vi.fn();
    const interval = createWorkInterval(1_000, () => work > 0, run);
    expect(vi.getTimerCount()).toBe(0);
    interval.start();
    interval.start();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(3_000);
    expect(run).toHaveBeenCalledTimes(3);
    work = 0;
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(run).toHaveBeenCalledTimes(3);
    work = 1;
    interval.start();
    vi.advanceTimersByTime(1_000);
    expect(run).toHaveBeenCalledTimes(4);
    interval.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never starts again once stopped', () => {
    const run = vi.fn();
    const interval = createWorkInterval(10, () => true, run);
    interval.stop();
    interval.start();
    expect(vi.getTimerCount()).toBe(0);
    interval.stop();
  });
});
