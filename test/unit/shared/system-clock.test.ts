import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/shared/index.js';

/** Timers that keep this process alive (Node lists only ref'd ones). */
const keepingAlive = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('the system clock', () => {
  it('its timers never keep the process alive, unless one is set to (a wait that work in progress must get past)', () => {
    const before = keepingAlive();
    const plain = systemClock.setTimer(() => undefined, 60_000);
    expect(keepingAlive()).toBe(before);
    const held = systemClock.setTimer(() => undefined, 60_000, { keepsProcessAlive: true });
    expect(keepingAlive()).toBe(before + 1);
    held.cancel();
    plain.cancel();
    expect(keepingAlive()).toBe(before);
  });

  it('runs a timer once, when its time has come', async () => {
    const startedAt = systemClock.now();
    const ranAt = await new Promise<number>((resolve) => systemClock.setTimer(() => resolve(systemClock.now()), 20));
    expect(ranAt - startedAt).toBeGreaterThanOrEqual(19);
  });
});
