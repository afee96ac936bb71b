import { describe, expect, it } from 'vitest';
import { createTunnelBackoff, reconnectDelayMs, reopenDelayMs } from '../../../src/tunnel/index.js';

describe('createTunnelBackoff: one policy for the first open and the reopens', () => {
  const fixed = { baseMs: 100, maxMs: 1_000, random: () => 1 };

  it('waits after the n-th failed first open as a calm reopen waits after n failed reopens', () => {
    const backoff = createTunnelBackoff(fixed);
    for (let failures = 1; failures <= 8; failures++) {
      expect(backoff.afterFailedOpen(failures)).toBe(backoff.afterLoss(failures, 0));
      // What the first open's own loop waited before there was one policy.
      expect(backoff.afterFailedOpen(failures)).toBe(reconnectDelayMs(failures - 1, fixed));
    }
  });

  it('keeps the reopen schedule: a quick first reopen, backoff after, flapping starts higher', () => {
    const backoff = createTunnelBackoff({ ...fixed, quickMs: 30 });
    expect(backoff.afterLoss(0, 0)).toBe(30);
    expect(backoff.afterLoss(1, 0)).toBe(100);
    expect(backoff.afterLoss(0, 2)).toBe(reopenDelayMs(0, 2, fixed));
    expect(backoff.afterLoss(0, 2)).toBe(400);
    expect(backoff.afterFailedOpen(20)).toBe(1_000);
  });

  it('treats a count below one as the first failure', () => {
    expect(createTunnelBackoff(fixed).afterFailedOpen(0)).toBe(100);
  });
});
