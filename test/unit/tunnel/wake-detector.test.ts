import { describe, expect, it } from 'vitest';
import { startWakeDetector, WAKE_TICK_MS } from '../../../src/tunnel/wake-detector.js';
import { createManualClock } from '../../helpers/manual-clock.js';

/**
 * The manual clock stands in for the monotonic clock (timers run on it); the
 * wall clock is it plus an offset the test moves, as Date.now() runs on while
 * a sleeping machine's monotonic clock stands still (Linux CLOCK_MONOTONIC,
 * macOS mach_absolute_time).
 */
function useDetector() {
  const clock = createManualClock();
  let wallAhead = 0;
  const wakes: number[] = [];
  const detector = startWakeDetector({ jumpMs: 5_000, clock, readMonotonic: () => clock.now(), readWall: () => clock.now() + wallAhead, onWake: (gap) => wakes.push(gap) });
  return { clock, wakes, detector, moveWall: (ms: number) => (wallAhead += ms) };
}

describe('the wake detector', () => {
  it('ticks every 10 s and says nothing while the process runs on time', () => {
    const { clock, wakes } = useDetector();
    expect(clock.nextTimerIn()).toBe(WAKE_TICK_MS);
    expect(WAKE_TICK_MS).toBe(10_000);
    clock.advance(10 * WAKE_TICK_MS);
    expect(wakes).toEqual([]);
  });

  it.each([
    ['the machine slept 60 s (the wall clock ran, the monotonic one stood still)', { wall: 60_000, stall: 0 }, [70_000]],
    ['the process was stopped 16 s (the tick came 6 s late)', { wall: 0, stall: 16_000 }, [16_000]],
    ['the tick came 4 s late (a loaded machine)', { wall: 0, stall: 14_000 }, []],
    ['the wall clock was set back an hour', { wall: -3_600_000, stall: 0 }, []],
    ['the wall clock was set 4 s forward', { wall: 4_000, stall: 0 }, []],
  ])('%s', (_name, { wall, stall }, expected) => {
    const { clock, wakes, moveWall } = useDetector();
    moveWall(wall);
    clock.stall(stall);
    clock.advance(WAKE_TICK_MS);
    expect(wakes).toEqual(expected);
    // Told once: the next tick on time is quiet.
    clock.advance(WAKE_TICK_MS);
    expect(wakes).toEqual(expected);
  });

  it('stop() leaves no timer; jumpMs 0 sets none', () => {
    const { clock, detector } = useDetector();
    detector.stop();
    expect(clock.pendingTimers()).toBe(0);
    const off = createManualClock();
    startWakeDetector({ jumpMs: 0, clock: off, onWake: () => undefined });
    expect(off.pendingTimers()).toBe(0);
  });
});
