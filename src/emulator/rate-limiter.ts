/** A rate as the docs state it: "60 an hour, bursts of 10". */
export interface Rate {
  perHour: number;
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(): RateDecision;
}

/** One token, in credit: the bucket fills by `perHour` credit a millisecond. */
const TOKEN = 3_600_000;

/**
 * A token bucket: `burst` tokens, refilled at `perHour` an hour; a refused
 * take costs nothing. Pure apart from the injected clock. It counts in
 * credit (a token is 3,600,000, one ms adds `perHour`) so that with whole
 * milliseconds a token is back exactly when due, however often it was asked
 * for meanwhile. A clock that goes back refills nothing, then or once it
 * catches up again.
 */
export function createRateLimiter(rate: Rate, now: () => number): RateLimiter {
  const full = rate.burst * TOKEN;
  let credit = full;
  let last = now();
  return {
    take() {
      const t = now();
      if (t > last) {
        credit = Math.min(full, credit + (t - last) * rate.perHour);
        last = t;
      }
      if (credit >= TOKEN) {
        credit -= TOKEN;
        return { allowed: true };
      }
      const waitMs = rate.perHour > 0 ? (TOKEN - credit) / rate.perHour : TOKEN;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
  };
}
