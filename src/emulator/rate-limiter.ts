/** A rate as the docs state it: "60 an hour, bursts of 10". */
export interface Rate {
  perHour: number;
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(): RateDecision;
}

/**
 * A token bucket: `burst` tokens, refilled at `perHour` an hour. Pure apart
 * from the injected clock.
 */
export function createRateLimiter(rate: Rate, now: () => number): RateLimiter {
  const perMs = rate.perHour / 3_600_000;
  let tokens = rate.burst;
  let last = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(rate.burst, tokens + Math.max(0, t - last) * perMs);
      last = t;
      if (tokens >= 1) {
        tokens -= 1;
        return { allowed: true };
      }
      const waitMs = perMs > 0 ? (1 - tokens) / perMs : 3_600_000;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
  };
}
