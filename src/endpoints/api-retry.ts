import { isTransientMedianError, retryAfterMs } from '../median/api-client.js';
import { MedianDevError, errorCode, isMedianDevError } from '../shared/errors.js';
import { keyLabel } from '../events/key-map.js';
import type { NewDaemonEvent } from '../events/daemon-events.js';
import { delayOrAbort } from '../shared/delay.js';
import type { Clock } from '../shared/clock.js';
import type { StartingPolicy } from './starting-retry.js';

/**
 * How the endpoint keeper tries a Median request again. Every kind of retry is
 * bounded; once the tries are used up the error goes to the caller (the daemon
 * shows it) and the next trigger (a tunnel reopen, `median-dev sync`, a
 * watched file) starts afresh.
 */
export interface RetryPolicy {
  /**
   * `rate_limited`: tries after the first, each after Median's `Retry-After`,
   * else `defaultWaitMs` (the docs: "Wait a minute"). A `Retry-After` past
   * `maxWaitMs` is not waited out in place: the error goes up at once.
   */
  rateLimit: { retries: number; defaultWaitMs: number; maxWaitMs: number };
  /** No answer in time, no connection, a 5xx, an answer that is not Median's: tries after the first, pauses doubling from `baseMs` up to `maxMs`. */
  transient: { retries: number; baseMs: number; maxMs: number };
  /** A sync that found the dev server still starting (a 5xx, no answer) right after median-dev (re)started or reloaded it: synced again within the window. */
  starting: StartingPolicy;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  rateLimit: Object.freeze({ retries: 3, defaultWaitMs: 60_000, maxWaitMs: 120_000 }),
  transient: Object.freeze({ retries: 3, baseMs: 500, maxMs: 4_000 }),
  starting: Object.freeze({ windowMs: 5_000, baseMs: 500, maxMs: 2_000 }),
});

/** Runs `call`, trying again per the policy; `what` names the request in messages ("the endpoint list"). */
export type WithRetry = <T>(what: string, call: () => Promise<T>) => Promise<T>;

export interface ApiRetryOptions {
  policy: Pick<RetryPolicy, 'rateLimit' | 'transient'>;
  emit(event: NewDaemonEvent): void;
  signal?: AbortSignal | undefined;
  /** What the pauses between tries wait on (tests drive it); real time when left out. */
  clock?: Clock | undefined;
}

const MIN_RATE_LIMIT_WAIT_MS = 1_000;
const NEXT_TRIGGER = `median-dev tries again when the tunnel reopens; run \`median-dev sync\` (or press ${keyLabel('sync')}) to try now.`;


function seconds(ms: number): string {
  if (ms < 1_000) return `${(ms / 1000).toFixed(1)} s`;
  return ms < 120_000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms / 60_000)} min`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The error with a hint saying why it gave up and what happens next (after the error's own hint, if any). */
function givenUp(error: unknown, reason: string): unknown {
  if (!isMedianDevError(error)) return error;
  return new MedianDevError(error.code, error.message, {
    hint: [reason, error.hint, NEXT_TRIGGER].filter(Boolean).join(' '),
    cause: error.cause,
    ...(error.details ? { details: { ...error.details } } : {}),
  });
}

export function createApiRetry(options: ApiRetryOptions): WithRetry {
  const { rateLimit, transient } = options.policy;
  const warn = (message: string) => options.emit({ event: 'log', level: 'warn', message });

  return async function withRetry<T>(what: string, call: () => Promise<T>): Promise<T> {
    let rateLimitedTries = 0;
    let transientTries = 0;
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (options.signal?.aborted) throw error;
        let waitMs: number;
        if (errorCode(error) === 'rate_limited') {
          const asked = retryAfterMs(error);
          // At least a second: a `Retry-After: 0` must not turn the retries into a burst.
          waitMs = Math.max(asked ?? rateLimit.defaultWaitMs, MIN_RATE_LIMIT_WAIT_MS);
          if (asked !== undefined && asked > rateLimit.maxWaitMs) {
            throw givenUp(error, `${capitalized(what)}: Median asks to wait ${seconds(asked)}, too long to wait in place.`);
          }
          if (rateLimitedTries >= rateLimit.retries) {
            throw givenUp(error, `${capitalized(what)}: Median kept rate limiting (${rateLimitedTries + 1} tries); wait a minute.`);
          }
          rateLimitedTries += 1;
          warn(`${capitalized(what)}: Median is rate limiting; trying again in ${seconds(waitMs)} (retry ${rateLimitedTries} of ${rateLimit.retries}).`);
        } else if (isTransientMedianError(error)) {
          if (transientTries >= transient.retries) {
            throw givenUp(error, `${capitalized(what)} failed ${transientTries + 1} times in a row.`);
          }
          waitMs = Math.min(transient.baseMs * 2 ** transientTries, transient.maxMs);
          transientTries += 1;
          warn(`${capitalized(what)} failed: ${messageOf(error)} Trying again in ${seconds(waitMs)} (retry ${transientTries} of ${transient.retries}).`);
        } else {
          throw error;
        }
        await delayOrAbort(waitMs, options.signal, options.clock);
      }
    }
  };
}
